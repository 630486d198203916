import { textReply } from '../../domain/reply.js';
import { describeUploads } from '../previews.js';
import { withNotes } from '../job-turn.js';
import { sourceScopeOf } from '../source-scope.js';
import type { IntentHandler } from './handler.js';

/**
 * A question for the model (the interpreter's loop): it spends tokens and run time, and its code may wait for
 * approval on the platform, parked (the worker slot goes to other threads while a person decides). A message that
 * only brings files gets them previewed.
 */
export const ask: IntentHandler<'ask'> = async (turn, intent) => {
  const question = intent.text.trim() !== '';
  const { budget, approve } = question ? await turn.governed(['tokens', 'runMs'], { parked: true }) : {};
  const notes = await turn.restore();
  const uploads = await turn.upload();
  notes.push(...uploads.problems);
  const { files } = uploads;
  if (!question) {
    if (files.length === 0) return textReply([...notes, 'Send a question or a ```python block.'].join('\n'));
    const previews = await turn.previewUploads(files, notes);
    return textReply([...notes, describeUploads(files, previews)].join('\n'));
  }
  const { message } = turn;
  const answered = await turn.services.interpreter.handle(
    {
      threadKey: turn.threadKey,
      text: intent.text,
      uploaded: files,
      ...(message.viewing ? { viewing: message.viewing } : {}),
    },
    {
      signal: turn.signal,
      onProgress: turn.onProgress,
      scope: sourceScopeOf(message),
      ...(budget ? { budget } : {}),
      ...(approve ? { approve } : {}),
    },
  );
  notes.push(...(budget?.notices ?? []));
  turn.recordAnswer(answered);
  const asked = { text: intent.text, files: files.map((f) => f.path) };
  const answer =
    answered.outcome === 'answer'
      ? { text: answered.text, ...(answered.figures ? { figures: answered.figures } : {}) }
      : undefined;
  notes.push(...(await turn.recordExport({ message: asked, runs: answered.runs, ...(answer ? { answer } : {}) })));
  return withNotes(notes, await turn.toReply(answered));
};
