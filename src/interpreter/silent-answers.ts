import { cutHeadTail } from './text-cut.js';
import { summarizeRun } from './tool-result.js';
import type { TurnRun } from './turn.js';

/**
 * Replies that say nothing the user can use: a model that announces work and stops ("I'll calculate the mean of
 * column v using pandas." with finish_reason stop and no call), and a model whose final reply is empty after its
 * code ran. The first gets one nudge; the second is answered with what the runs computed.
 */

/** Longest reply read as an announcement: a real answer that happens to start "Let me…" is longer. */
const MAX_NARRATION_CHARS = 600;
/** A sentence that promises work to come. */
const PROMISE =
  /(?:^|[.!:\n]\s*)(?:(?:sure|okay|ok|alright|great|certainly|of course)[,.!]?\s+)?(?:i['’]ll|i will|i['’]m going to|i am going to|let me|let['’]s|we['’]ll|we will|i need to|first,? i|next,? i|now,? i|to do this,? i)\b/i;
/** What the promised work is: something code does. */
const WORK =
  /\b(calculat|comput|load|read|open|analy[sz]|plot|chart|graph|draw|run|execut|check|inspect|look|examin|pars|count|sum|averag|mean|group|filter|sort|merge|join|aggregat|summari[sz]|visuali[sz]|creat|generat|writ|build|fit|train|clean|convert|extract|find|determin|explor|start|begin|us(e|ing) (pandas|python|numpy|matplotlib|code))/i;

/**
 * Whether `text` only announces work: short, a promise of something code does, no question for the user (asking
 * which column is meant is a fair reply), and no code block or figures that would be the work itself.
 */
export function isNarration(text: string): boolean {
  const t = text.trim();
  if (!t || t.length > MAX_NARRATION_CHARS) return false;
  if (t.includes('?') || t.includes('```')) return false;
  return PROMISE.test(t) && WORK.test(t);
}

/** The nudge after an announcement. */
export function narrationNote(textProtocol: boolean): string {
  return textProtocol
    ? '[Threadlab] You said what you will do, but nothing ran: no code block was in your reply. Do it now: write the code in a fenced block tagged with its language. If no code is needed, give your final answer.'
    : '[Threadlab] You said what you will do, but nothing ran: your reply had no run_code call. Do it now: call run_code with the code. If no code is needed, give your final answer.';
}

/** Longest run output quoted in an answer the model did not write, in characters. */
const MAX_QUOTED_CHARS = 1500;

/**
 * The answer of a turn whose model wrote none: one line saying so, then the last successful run's output (its
 * charts and files travel with the reply as for any answer). Undefined when nothing ran.
 */
export function emptyAnswerText(runs: readonly TurnRun[]): string | undefined {
  if (runs.length === 0) return undefined;
  const run = [...runs].reverse().find((r) => r.result.status === 'ok') ?? runs.at(-1)!;
  const output = [run.result.stdout, ...textValues(run)]
    .filter((p) => p.trim())
    .join('\n')
    .trim();
  const head = 'The model wrote no answer text, so here is what its last run gave.';
  if (!output) return `${head} It printed nothing: ${summarizeRun(run.result, 300)}.`;
  const quoted = cutHeadTail(output, { maxChars: MAX_QUOTED_CHARS }).text.replace(/```/g, "'''");
  return `${head}\n\n\`\`\`text\n${quoted}\n\`\`\``;
}

/** The values a run displayed as plain text (a cell's last expression). */
function textValues(run: TurnRun): string[] {
  return run.result.displays
    .filter((d) => !Object.keys(d.data).some((m) => m.startsWith('image/') || m === 'text/html'))
    .map((d) => d.data['text/plain'])
    .filter((t): t is string => typeof t === 'string');
}

/** The answer when the model returned nothing twice and nothing ran. */
export const NO_ANSWER_TEXT =
  'The model returned an empty reply twice, so there is no answer. Ask again, perhaps more specifically; if it keeps happening, the model may not suit this task (OPENAI_MODEL).';
