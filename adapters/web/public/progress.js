// The live block of a running job: status, the code being run, streaming output, live charts.
import { el, formatMs, highlight } from './render.js';

const MAX_OUTPUT_CHARS = 40_000;

/** Live progress of one thread, shown as a bot message at the end of the thread until the reply arrives. */
export class ProgressView {
  constructor(container, onStatus) {
    this.container = container;
    this.onStatus = onStatus;
    this.node = null;
  }

  ensure() {
    if (this.node) return this.node;
    const node = el('article', 'msg bot progress');
    const body = el('div', 'body');
    this.label = el('span', 'label', 'Working…');
    const status = el('div', 'progress-status');
    status.append(el('span', 'spinner'), this.label);
    this.streamText = el('div', 'stream-text');
    this.runs = el('div', 'live-runs');
    body.append(status, this.runs, this.streamText);
    node.append(el('div', 'avatar', 'TL'), body);
    this.container.append(node);
    this.node = node;
    return node;
  }

  setLabel(text) {
    this.ensure();
    this.label.textContent = text;
    this.onStatus(text);
  }

  /** Applies one ProgressEvent (see src/domain/progress-event.ts). */
  update(event) {
    this.ensure();
    switch (event.type) {
      case 'queued':
        return this.setLabel(`Queued — position ${event.position}`);
      case 'started':
        return this.setLabel('Working…');
      case 'thinking':
        return this.setLabel(`Thinking (round ${event.round})…`);
      case 'text':
        this.streamText.textContent += event.delta;
        return;
      case 'code':
        return this.startRun(event);
      case 'output':
        return this.appendOutput(event.stream, event.text);
      case 'display':
        return this.addDisplay(event.display);
      case 'file':
        this.currentRun()?.append(el('div', 'live-file', `Created ${event.artifact.path}`));
        return;
      case 'run_finished':
        this.currentRun()?.classList.add(`status-${event.status}`);
        return this.setLabel(`Run finished: ${event.status} in ${formatMs(event.durationMs)}`);
      case 'query':
        return this.startQuery(event);
      case 'query_finished':
        return this.finishQuery(event);
      case 'final':
        return this.setLabel('Writing the answer…');
      case 'error':
        this.ensure().classList.add('failed');
        return this.setLabel(`Error: ${event.message}`);
      default:
        return undefined;
    }
  }

  startRun(event) {
    const run = el('div', 'live-run');
    run.append(el('div', 'live-run-title', `Running ${event.language} (round ${event.round})`));
    const pre = el('pre');
    const code = el('code', `hljs language-${event.language}`);
    code.innerHTML = highlight(event.code, event.language);
    pre.append(code);
    this.output = el('pre', 'output live-output');
    run.append(pre, this.output);
    this.runs.append(run);
    this.setLabel(`Running ${event.language}…`);
  }

  /** A query as a step like a run: the source and its SQL, then its rows and time once it ends. */
  startQuery(event) {
    const run = el('div', 'live-run live-query');
    run.append(el('div', 'live-run-title', `Querying ${event.source} (round ${event.round})`));
    const pre = el('pre');
    const code = el('code', 'hljs language-sql');
    code.innerHTML = highlight(event.sql, 'sql');
    pre.append(code);
    run.append(pre);
    this.output = null;
    this.runs.append(run);
    this.setLabel(`Querying ${event.source}…`);
  }

  finishQuery(event) {
    const o = event.outcome;
    const line = o.ok
      ? `${o.rows.toLocaleString('en-US')} rows in ${formatMs(o.ms)}${o.cut ? ` (cut at the ${o.cut} cap)` : ''} → ${o.name}`
      : o.message;
    this.currentRun()?.classList.add(o.ok ? 'status-ok' : 'status-error');
    this.currentRun()?.append(el('div', 'live-query-result', line));
    return this.setLabel(o.ok ? `Query on ${event.source}: ${line}` : `Query on ${event.source} failed`);
  }

  currentRun() {
    return this.runs.lastElementChild;
  }

  appendOutput(stream, text) {
    if (!this.output) {
      this.output = el('pre', 'output live-output');
      this.runs.append(this.output);
    }
    const span = el('span', stream === 'stderr' ? 'stderr' : 'stdout', text);
    this.output.append(span);
    while (this.output.textContent.length > MAX_OUTPUT_CHARS && this.output.firstChild) this.output.firstChild.remove();
    this.output.scrollTop = this.output.scrollHeight;
  }

  addDisplay(display) {
    const target = this.currentRun() ?? this.runs;
    const png = display.data?.['image/png'];
    if (png) {
      const img = el('img', 'chart live-chart');
      img.src = `data:image/png;base64,${png}`;
      img.alt = display.meta?.title ?? 'chart';
      target.append(img);
    } else if (display.data?.['text/plain']) {
      target.append(el('pre', 'output', display.data['text/plain']));
    }
  }

  /** Removes the block (the reply has arrived or the job ended). */
  clear() {
    this.node?.remove();
    this.node = null;
    this.output = null;
  }
}
