import type { Intent } from '../../domain/intent.js';
import { textReply } from '../../domain/reply.js';
import { runCells } from '../run-cells.js';
import { readScript } from '../script-file.js';
import type { IntentHandler } from './handler.js';

/**
 * Code from a message run as is: another message's fenced blocks, or an attached script with the other
 * attachments in `/mnt/data`. Whoever asked is the message's user (access, budget and audit are theirs); code
 * whose author is someone else leaves no text in the thread's memory. Nothing to run, or too much, is the answer.
 */
export const runMessage: IntentHandler<'runCells' | 'runScript'> = async (turn, intent) => {
  const { message, adapter, signal } = turn;
  const settings = turn.services.config.sandbox;
  const limits = {
    maxBytes: settings.scriptMaxBytes,
    maxCells: settings.maxRunCells,
    downloadMaxBytes: settings.maxFileBytes,
  };
  const early = refusalOf(intent, limits.maxCells);
  if (early) return textReply(early, 'notice');
  const budget = await turn.budget(['runMs']);
  const notes = await turn.restore();
  const script = intent.kind === 'runScript' ? message.attachments.find((a) => a.id === intent.attachment) : undefined;
  let cells = intent.kind === 'runCells' ? { cells: intent.cells, notes: skippedNote(intent.skipped) } : undefined;
  if (script) {
    const read = await readScript({ attachment: script, adapter, limits, signal });
    if ('refused' in read) return textReply([...notes, read.refused].join('\n'), 'notice');
    cells = read;
  }
  if (!cells) return textReply('The attachment to run is no longer part of this message.', 'notice');
  const others = { ...message, attachments: message.attachments.filter((a) => a !== script) };
  notes.push(...(await turn.upload(others)).problems, ...cells.notes);
  const ran = await runCells(turn.services.interpreter, {
    threadKey: turn.threadKey,
    cells: cells.cells,
    foreign: message.source !== undefined && message.source.authorId !== message.user.id,
    signal,
    onProgress: turn.onProgress,
    ...(budget ? { budget } : {}),
  });
  notes.push(...(budget?.notices ?? []), ...(await turn.recordExport({ runs: ran.turn.runs })));
  const reply = await turn.toReply(ran.turn);
  if (notes.length) reply.text = `${notes.join('\n')}\n\n${reply.text}`;
  if (ran.notes.length) reply.text = `${reply.text}\n\n${ran.notes.join('\n')}`;
  return reply;
};

/** The answer to a message run with nothing to run, or too much; undefined when it may run. */
function refusalOf(intent: Extract<Intent, { kind: 'runCells' | 'runScript' }>, maxCells: number): string | undefined {
  if (intent.kind === 'runScript')
    return intent.attachment === undefined ? (intent.problem ?? 'Nothing to run.') : undefined;
  if (intent.cells.length === 0) {
    const others = intent.skipped.length
      ? ` (its ${intent.skipped.length === 1 ? 'block is' : 'blocks are'} ${[...new Set(intent.skipped)].map((l) => `\`${l || 'unlabelled'}\``).join(', ')}, not a language I run)`
      : '';
    return `That message has no code block to run${others}. Code runs from fenced blocks: \`\`\`python … \`\`\` (or r, js, bash; unlabelled is python).`;
  }
  if (intent.cells.length > maxCells)
    return `That message has ${intent.cells.length} code blocks; at most ${maxCells} run from one message (THREADLAB_RUN_MAX_CELLS).`;
  return undefined;
}

/** Says which blocks of a message were not run for their language. */
function skippedNote(skipped: readonly string[]): string[] {
  if (skipped.length === 0) return [];
  const labels = [...new Set(skipped)].map((l) => `\`${l}\``).join(', ');
  return [
    `_Skipped ${skipped.length} block${skipped.length === 1 ? '' : 's'} in a language I do not run (${labels})._`,
  ];
}
