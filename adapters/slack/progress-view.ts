import type { ProgressEvent } from '../../src/domain/progress-event.js';
import { formatDuration } from '../../src/domain/text/format.js';
import { queryStepLine } from '../../src/domain/text/query-step.js';
import { escapeMrkdwn } from './slack-text.js';
import type { SlackBlock } from './slack-block.js';

/** The action id of the Stop button; its `value` is the thread key. */
export const STOP_ACTION_ID = 'threadlab_stop';

/** What the live status shows; built from progress events, rendered to Block Kit or a one-line status. */
export interface ProgressState {
  phase: string;
  /** One-line status for `assistant.threads.setStatus`. */
  status: string;
  code?: { language: string; code: string; round: number };
  outputTail: string;
  charts: number;
  /**
   * The turn's finished queries, one line each (the last {@link MAX_QUERY_LINES}): kept below the phase, which the
   * next step takes, so a query that ends between two writes of the status is still seen.
   */
  queries?: string[];
}

const MAX_TAIL_CHARS = 800;
const MAX_CODE_LINES = 15;
/** Finished queries the status keeps in view. */
export const MAX_QUERY_LINES = 3;

export function initialProgress(): ProgressState {
  return { phase: ':hourglass_flowing_sand: Working…', status: 'is working…', outputTail: '', charts: 0 };
}

/** Applies one event; returns false when it changes nothing worth showing (text deltas, the final reply). */
export function applyProgress(state: ProgressState, event: ProgressEvent): boolean {
  switch (event.type) {
    case 'queued':
      state.phase = `:hourglass_flowing_sand: Queued (position ${event.position})…`;
      state.status = 'is waiting in the queue…';
      return true;
    case 'started':
      state.phase = ':hourglass_flowing_sand: Working…';
      state.status = 'is working…';
      return true;
    case 'thinking':
      state.phase = `:thought_balloon: Thinking… (round ${event.round})`;
      state.status = 'is thinking…';
      return true;
    case 'code':
      state.code = { language: event.language, code: event.code, round: event.round };
      state.outputTail = '';
      state.phase = `:gear: Running ${event.language} (round ${event.round})…`;
      state.status = `is running ${event.language}…`;
      return true;
    case 'output':
      state.outputTail = (state.outputTail + event.text).slice(-4 * MAX_TAIL_CHARS);
      return true;
    case 'display':
      state.charts += 1;
      return true;
    case 'run_finished':
      state.phase = `${event.status === 'ok' ? ':white_check_mark:' : ':x:'} Run finished: ${event.status} in ${formatDuration(event.durationMs)}`;
      state.status = 'is reading the output…';
      return true;
    case 'query':
      state.code = { language: 'sql', code: event.sql, round: event.round };
      state.outputTail = '';
      state.phase = `:card_file_box: Querying ${escapeMrkdwn(event.source)} (round ${event.round})…`;
      state.status = `is querying ${event.source}…`;
      return true;
    case 'query_finished':
      state.phase = escapeMrkdwn(queryStepLine(event.source, event.outcome));
      state.queries = [...(state.queries ?? []), state.phase].slice(-MAX_QUERY_LINES);
      state.status = 'is reading the result…';
      return true;
    case 'error':
      state.phase = `:warning: ${escapeMrkdwn(event.message)}`;
      state.status = 'hit a problem…';
      return true;
    default:
      return false;
  }
}

/** Block Kit for the status message: phase, code being run, output tail, and the Stop button. */
export function renderProgress(
  state: ProgressState,
  options: { threadKey: string; stoppable: boolean },
): { text: string; blocks: SlackBlock[] } {
  const lines = [`*${state.phase}*`];
  const earlier = (state.queries ?? []).filter((q) => q !== state.phase);
  if (earlier.length > 0) lines.push(earlier.map((q) => `:card_file_box: ${q}`).join('\n'));
  if (state.code) {
    const codeLines = state.code.code.split('\n');
    const shown = codeLines.slice(-MAX_CODE_LINES).join('\n').slice(-1200);
    const more = codeLines.length > MAX_CODE_LINES ? `_…${codeLines.length - MAX_CODE_LINES} lines above_\n` : '';
    lines.push(`${more}\`\`\`\n${escapeMrkdwn(shown)}\n\`\`\``);
  }
  if (state.outputTail.trim() !== '') {
    const tail = state.outputTail.split('\n').slice(-10).join('\n').slice(-MAX_TAIL_CHARS);
    lines.push(`Output so far:\n\`\`\`\n${escapeMrkdwn(tail)}\n\`\`\``);
  }
  if (state.charts > 0) lines.push(`:bar_chart: ${state.charts} chart${state.charts === 1 ? '' : 's'} so far`);
  const blocks: SlackBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n').slice(0, 3000) } }];
  if (options.stoppable) {
    blocks.push({
      type: 'actions',
      block_id: 'threadlab_progress',
      elements: [
        {
          type: 'button',
          action_id: STOP_ACTION_ID,
          style: 'danger',
          text: { type: 'plain_text', text: 'Stop' },
          value: options.threadKey,
        },
      ],
    });
  }
  return { text: state.phase.replace(/:[a-z_]+: /, ''), blocks };
}
