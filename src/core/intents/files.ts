import { isInternalFile } from '../../domain/file-names.js';
import { textReply, type Reply } from '../../domain/reply.js';
import { formatBytes } from '../../domain/text/format.js';
import { withNotes } from '../job-turn.js';
import type { IntentHandler } from './handler.js';

/** `files`: what is in the thread's `/mnt/data` (earlier uploads fetched again on a new worker). */
export const files: IntentHandler<'files'> = async (turn) => {
  const notes = await turn.restore();
  const listed = (await turn.services.sandbox.listFiles(turn.threadKey)).filter((f) => !isInternalFile(f.path));
  return withNotes(notes, listing(listed));
};

function listing(files: { path: string; bytes: number; mime: string }[]): Reply {
  if (files.length === 0)
    return textReply('No files in this thread yet. Upload one, or have your code write to `/mnt/data`.');
  const lines = files.map((f) => `• \`${f.path}\` — ${formatBytes(f.bytes)}, ${f.mime}`);
  return textReply([`Files in \`/mnt/data\` (${files.length}):`, ...lines].join('\n'));
}
