import type { Artifact, ExecutionResult, SandboxFile } from '../src/domain/execution.js';
import { ThreadlabError } from '../src/domain/errors.js';
import { isInstalledPackageFile } from '../src/domain/file-names.js';
import { mimeFromName } from '../src/domain/mime.js';
import type { Logger } from '../src/logger.js';
import type { FileMirror } from './file-mirror.js';
import { CHUNK_BYTES, FileTooLargeError, PUT_CHUNK_BYTES, putChunks, readFile, streamFile } from './file-transfer.js';
import type { RunOutcome } from './run-execution.js';
import type { RunnerConnection } from './runner-connection.js';
import type { Session } from './session-registry.js';

/** Files brought back per run at most, whatever the runner lists (it shares a process with user code). */
export const MAX_RUN_ARTIFACTS = 200;
/** Files of installed packages (`.local/`) brought back per run at most: a cap of their own (runner/files.py). */
export const MAX_RUN_PACKAGE_FILES = 20_000;
/** Deletions applied to the host copy per run (the runner walks at most 20,000 files). */
export const MAX_RUN_DELETIONS = 20_000;
/** Entries of a result's not-brought-back list; the rest are counted in one last entry. */
export const MAX_SKIPPED_LISTED = 50;

const MIB = 1024 * 1024;

/** Puts every mirrored file into a fresh container, a chunk at a time; returns how many. */
export async function restoreFiles(connection: RunnerConnection, mirror: FileMirror): Promise<number> {
  const files = await mirror.list();
  for (const file of files) await putChunks(connection, file.path, mirror.chunks(file.path, CHUNK_BYTES));
  return files.length;
}

/** The refusal of a file larger than THREADLAB_MAX_FILE_MB: a policy refusal, told to the user. */
export function fileTooLarge(path: string, maxBytes: number): ThreadlabError {
  return new ThreadlabError(
    'sandbox_file_rejected',
    `${path} is larger than ${maxBytes / MIB} MB (THREADLAB_MAX_FILE_MB).`,
    {
      isPolicy: true,
    },
  );
}

export interface PutSessionFileOptions {
  /** The session's live container. */
  connection: RunnerConnection;
  /** The session's host copy. */
  mirror: FileMirror;
  /** Where the file goes in `/mnt/data`, already sanitised. */
  path: string;
  data: Buffer | AsyncIterable<Uint8Array>;
  /** Largest file taken (THREADLAB_MAX_FILE_MB). */
  maxBytes: number;
}

/** Writes a file given to the session into its host copy, then into its container; says what the container holds. */
export async function putSessionFile(options: PutSessionFileOptions): Promise<SandboxFile> {
  const { connection, mirror, path, data, maxBytes } = options;
  // The bytes go to the host copy first, counted as they arrive: a source that fails or runs over
  // leaves no partial file anywhere, and the container then reads the finished copy a chunk at a time.
  await mirror.writeFrom(path, async (write) => {
    let received = 0;
    for await (const chunk of Buffer.isBuffer(data) ? [data] : data) {
      received += chunk.length;
      if (received > maxBytes) throw fileTooLarge(path, maxBytes);
      await write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
  });
  try {
    return await putChunks(connection, path, mirror.chunks(path, PUT_CHUNK_BYTES));
  } catch (err) {
    // Not in the container: the host copy would pass for it (reads prefer it), so it goes too.
    await mirror.remove(path);
    throw err;
  }
}

/** The session's files as its live container lists them, else as its host copy holds them. */
export async function listSessionFiles(session: Pick<Session, 'live' | 'mirror'>): Promise<SandboxFile[]> {
  if (session.live?.isAlive) {
    const frame = await session.live.connection.request({ op: 'list_files' });
    if (frame.type === 'files') return frame.files;
  }
  return (await session.mirror.list()).map((f) => ({ ...f, mime: mimeFromName(f.path) }));
}

/** Reads a file of the session (`path` relative to `/mnt/data`), from its host copy when that has it. */
export async function readSessionFile(
  session: Pick<Session, 'live' | 'mirror'>,
  file: { path: string; maxBytes: number },
): Promise<Buffer> {
  const { path, maxBytes } = file;
  // The host copy is what the last run brought back, within its limits: the container's file may
  // have grown since (a process left running), and reading it again would cost a second transfer.
  if (!session.live?.isAlive || (await session.mirror.has(path))) return session.mirror.read(path);
  return readFile(session.live.connection, path, maxBytes);
}

export interface SyncRunFilesOptions {
  connection: RunnerConnection;
  mirror: FileMirror;
  outcome: RunOutcome;
  /** Largest single file brought back (THREADLAB_MAX_FILE_MB). */
  maxFileBytes: number;
  /** Total brought back by one run (THREADLAB_MAX_RUN_FILES_MB). */
  maxRunFilesBytes: number;
  /**
   * Total of the session's host copy (THREADLAB_SANDBOX_DATA_MB): no more than `/mnt/data` holds, so
   * runs after runs of sparse files cannot fill the host disk either.
   */
  maxMirrorBytes: number;
  logger: Logger;
}

/** Characters kept of a not-brought-back path or reason. */
const MAX_SKIPPED_TEXT_CHARS = 300;

type Skipped = NonNullable<ExecutionResult['skippedArtifacts']>[number];

/** Bytes in MiB with one decimal, as the reasons for files not brought back say them. */
export function formatMib(bytes: number): string {
  return `${Math.round((bytes / MIB) * 10) / 10} MiB`;
}

/**
 * Brings a run's changed files into the host mirror, streaming each one to disk, and deletes what the
 * run deleted. The runner already applied the limits, but its lists and sizes are claims: here the bytes
 * actually received count against the per-file limit and the total per run. What is not brought back
 * leaves `result.artifacts` for `result.skippedArtifacts`, with why, so nobody reads it later.
 */
export async function syncRunFiles(options: SyncRunFilesOptions): Promise<void> {
  const { connection, mirror, outcome, logger } = options;
  const result = outcome.result;
  if (outcome.deleted.length > MAX_RUN_DELETIONS) {
    logger.warn(
      { deleted: outcome.deleted.length },
      'sandbox reported more deletions than are applied to the host copy',
    );
  }
  for (const path of outcome.deleted.slice(0, MAX_RUN_DELETIONS)) {
    try {
      await mirror.remove(path);
    } catch (err) {
      logger.warn({ err, path }, 'sandbox file mirror could not apply a deletion');
    }
  }
  const kept: Artifact[] = [];
  const skipped: Skipped[] = [...(result.skippedArtifacts ?? [])];
  const changed = new Set(result.artifacts.map((a) => a.path));
  const mirrored = (await mirror.list()).reduce((n, f) => n + (changed.has(f.path) ? 0 : f.bytes), 0);
  let remaining = options.maxRunFilesBytes;
  let mirrorRoom = options.maxMirrorBytes - mirrored;
  const skip = async (artifact: Artifact, reason: string) => {
    skipped.push({ path: artifact.path, reason, bytes: artifact.bytes });
    // An older copy would pass for the current file (reads prefer the host copy): drop it.
    if (artifact.change === 'modified') await mirror.remove(artifact.path).catch(() => undefined);
  };
  let keptPackageFiles = 0;
  for (const artifact of result.artifacts) {
    const isPackageFile = isInstalledPackageFile(artifact.path);
    if (!isPackageFile && kept.length - keptPackageFiles >= MAX_RUN_ARTIFACTS) {
      await skip(artifact, `more than ${MAX_RUN_ARTIFACTS} files changed in one run`);
      continue;
    }
    if (isPackageFile && keptPackageFiles >= MAX_RUN_PACKAGE_FILES) {
      await skip(artifact, `more than ${MAX_RUN_PACKAGE_FILES} files of installed packages changed in one run`);
      continue;
    }
    const allowed = Math.max(0, Math.min(options.maxFileBytes, remaining, mirrorRoom));
    if (artifact.bytes > allowed) {
      await skip(artifact, overLimit(artifact.bytes, { run: remaining, mirror: mirrorRoom }, options));
      continue;
    }
    try {
      const received = await mirror.writeFrom(artifact.path, (write) =>
        streamFile(connection, artifact.path, { maxBytes: allowed, onChunk: write }),
      );
      remaining -= received;
      mirrorRoom -= received;
      if (isPackageFile) keptPackageFiles += 1;
      kept.push({ ...artifact, bytes: received });
    } catch (err) {
      if (err instanceof FileTooLargeError) {
        const why = overLimit(err.maxBytes + 1, { run: remaining, mirror: mirrorRoom }, options);
        await skip(artifact, `${why}; it grew past the size the sandbox reported`);
      } else {
        logger.warn({ err, path: artifact.path, mirror: mirror.root }, 'sandbox file could not be brought back');
        await skip(artifact, `it could not be copied out of the sandbox (${(err as Error).message})`);
      }
    }
  }
  result.artifacts = kept;
  const more = Math.max(0, Math.floor(outcome.skippedMore ?? 0));
  if (skipped.length > 0 || more > 0) result.skippedArtifacts = capList(skipped, more);
}

/** Why a file of `bytes` does not fit: the file limit, the run's total or the session's host copy. */
function overLimit(bytes: number, room: { run: number; mirror: number }, options: SyncRunFilesOptions): string {
  const size = formatMib(bytes);
  if (bytes > options.maxFileBytes) return `${size}; larger than the ${formatMib(options.maxFileBytes)} file limit`;
  if (room.mirror < room.run) {
    return `${size}; the thread's files on the host would exceed ${formatMib(options.maxMirrorBytes)} (THREADLAB_SANDBOX_DATA_MB)`;
  }
  return `${size}; total per run of ${formatMib(options.maxRunFilesBytes)} reached (${formatMib(Math.max(0, room.run))} left)`;
}

function capList(skipped: Skipped[], more: number): Skipped[] {
  const rest = skipped.length - Math.min(skipped.length, MAX_SKIPPED_LISTED) + more;
  // Paths and reasons come from the sandbox: as long as it likes, unless cut here.
  const listed = skipped.slice(0, MAX_SKIPPED_LISTED).map((s) => ({
    ...s,
    path: s.path.slice(0, MAX_SKIPPED_TEXT_CHARS),
    reason: s.reason.slice(0, MAX_SKIPPED_TEXT_CHARS),
  }));
  if (rest === 0) return listed;
  return [
    ...listed,
    { path: `${rest} more files`, reason: `not brought back and not listed (at most ${MAX_SKIPPED_LISTED} are)` },
  ];
}
