import { fenceLabel, type Language } from '../../src/domain/execution.js';
import type { ProgressEvent } from '../../src/domain/progress-event.js';
import { formatDuration } from '../../src/domain/text/format.js';
import { queryStepLine } from '../../src/domain/text/query-step.js';
import { defuseFences } from './reply-text.js';

/** What the status message shows; folded from progress events. */
export interface StatusState {
  headline: string;
  code?: { language: Language | 'sql'; code: string };
  /** The tail of the current run's output. */
  output: string;
  notes: string[];
}

export const initialStatus = (): StatusState => ({ headline: '⏳ Working…', output: '', notes: [] });

const CODE_MAX_CHARS = 700;
const OUTPUT_MAX_CHARS = 500;
const NOTES_MAX = 5;

const tail = (text: string, max: number) => (text.length <= max ? text : `…${text.slice(text.length - max + 1)}`);

/** Folds one event into the status. Events the status does not show leave it unchanged. */
export function foldProgress(state: StatusState, event: ProgressEvent): StatusState {
  switch (event.type) {
    case 'queued':
      return { ...state, headline: `⏳ Queued (position ${event.position})` };
    case 'started':
      return { ...state, headline: '⚙️ Working…' };
    case 'thinking':
      return { ...state, headline: `🤔 Thinking (step ${event.round})…` };
    case 'code':
      return {
        ...state,
        headline: `▶️ Running ${event.language} (step ${event.round})…`,
        code: { language: event.language, code: event.code },
        output: '',
      };
    case 'output':
      return { ...state, output: tail(state.output + event.text, OUTPUT_MAX_CHARS * 2) };
    case 'display':
      return {
        ...state,
        notes: [
          ...state.notes,
          `📊 ${event.display.meta?.title ? `Chart: ${event.display.meta.title}` : 'Made a chart'}`,
        ].slice(-NOTES_MAX),
      };
    case 'file':
      return {
        ...state,
        notes: [
          ...state.notes,
          `📄 ${event.artifact.change === 'created' ? 'Wrote' : 'Updated'} \`${event.artifact.path}\``,
        ].slice(-NOTES_MAX),
      };
    case 'run_finished':
      return {
        ...state,
        headline: `${event.status === 'ok' ? '✔️' : '✖️'} Run finished (${event.status}, ${formatDuration(event.durationMs)})`,
      };
    case 'query':
      return {
        ...state,
        headline: `🗄️ Querying ${event.source} (step ${event.round})…`,
        code: { language: 'sql', code: event.sql },
        output: '',
      };
    case 'query_finished': {
      // Kept among the notes too: the next step takes the headline, and the message is edited at most once a
      // second, so a query that ends within that second would otherwise never be seen.
      const line = queryStepLine(event.source, event.outcome);
      return { ...state, headline: line, notes: [...state.notes, `🗄️ ${line}`].slice(-NOTES_MAX) };
    }
    case 'text':
      return state.headline.startsWith('✍️') ? state : { ...state, headline: '✍️ Writing the answer…' };
    case 'final':
      return { ...state, headline: '✅ Done' };
    case 'error':
      return { ...state, headline: `⚠️ ${event.message}` };
  }
}

/** The status message's content, always under Discord's 2,000 characters. */
export function renderStatus(state: StatusState): string {
  const parts = [`**${state.headline.slice(0, 300)}**`];
  if (state.code) {
    const lang = state.code.language === 'sql' ? 'sql' : fenceLabel(state.code.language);
    parts.push(`\`\`\`${lang}\n${defuseFences(tail(state.code.code.trimEnd(), CODE_MAX_CHARS))}\n\`\`\``);
  }
  if (state.output.trim())
    parts.push(`\`\`\`\n${defuseFences(tail(state.output.trimEnd(), OUTPUT_MAX_CHARS))}\n\`\`\``);
  if (state.notes.length > 0) parts.push(state.notes.map((n) => n.slice(0, 150)).join('\n'));
  return parts.join('\n').slice(0, 1990);
}
