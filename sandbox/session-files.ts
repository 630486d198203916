import type { Logger } from '../src/logger.js';
import type { FileMirror } from './file-mirror.js';
import { putFile, readFile } from './file-transfer.js';
import type { RunOutcome } from './run-execution.js';
import type { RunnerConnection } from './runner-connection.js';

/** Puts every mirrored file into a fresh container; returns how many. */
export async function restoreFiles(connection: RunnerConnection, mirror: FileMirror): Promise<number> {
  const files = await mirror.list();
  for (const file of files) await putFile(connection, file.path, await mirror.read(file.path));
  return files.length;
}

export interface SyncRunFilesOptions {
  connection: RunnerConnection;
  mirror: FileMirror;
  outcome: RunOutcome;
  maxFileBytes: number;
  logger: Logger;
}

/**
 * Brings a run's changed and deleted files into the host mirror. A failure is logged, not thrown:
 * the run itself succeeded, and the container still holds the files.
 */
export async function syncRunFiles(options: SyncRunFilesOptions): Promise<void> {
  const { connection, mirror, outcome } = options;
  try {
    for (const path of outcome.deleted) await mirror.remove(path);
    for (const artifact of outcome.result.artifacts) {
      await mirror.write(artifact.path, await readFile(connection, artifact.path, options.maxFileBytes));
    }
  } catch (err) {
    options.logger.warn({ err, mirror: mirror.root }, 'sandbox file mirror could not be updated');
  }
}
