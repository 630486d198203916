import { ThreadlabError } from '../../src/domain/errors.js';
import type { Artifact, ExecutionResult, SandboxFile } from '../../src/domain/execution.js';
import { mimeFromName } from '../../src/domain/mime.js';
import { formatMib } from '../../sandbox/session-files.js';

/** A session's files in /mnt/data, path → bytes and when they were last written. */
export type SessionFiles = Map<string, { data: Buffer; modifiedMs: number }>;

/** The limits on files the fake applies like the real sandbox does. */
export interface FileLimits {
  /** Largest file brought back by a run, uploaded or read. */
  maxFileBytes: number;
  /** Total brought back by one run. */
  maxRunFilesBytes: number;
}

const MIB = 1024 * 1024;

/** The refusal of an upload over the per-file limit, as the real sandbox words it. */
export function fileTooLarge(path: string, maxBytes: number): ThreadlabError {
  return new ThreadlabError(
    'sandbox_file_rejected',
    `${path} is larger than ${maxBytes / MIB} MB (THREADLAB_MAX_FILE_MB).`,
    {
      isPolicy: true,
    },
  );
}

/**
 * The bytes of an upload. A stream is read to its end (and its errors surface) as the real sandbox would, before
 * anything is stored; its size is counted as it arrives, and one over `maxBytes` is refused then.
 */
export async function receiveUpload(
  path: string,
  source: Buffer | AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<Buffer> {
  if (Buffer.isBuffer(source)) return source;
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of source) {
    received += chunk.length;
    if (received > maxBytes) throw fileTooLarge(path, maxBytes);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** The session's files as `listFiles` answers, in path order. */
export function listSessionFiles(files: SessionFiles): SandboxFile[] {
  return [...files]
    .map(([path, f]) => ({ path, bytes: f.data.length, mime: mimeFromName(path), modifiedMs: f.modifiedMs }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** A file of the session by a relative path; an unsafe path, a missing file or one over the limit is refused. */
export function readSessionFile(files: SessionFiles | undefined, path: string, maxFileBytes: number): Buffer {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.some((p) => p === '..' || p.includes('\\') || p.includes('\0')))
    throw new ThreadlabError('sandbox_file_rejected', `Unsafe file path: ${JSON.stringify(path)}`, {
      isPolicy: true,
    });
  const file = files?.get(parts.join('/'));
  if (!file) throw new ThreadlabError('sandbox_file_rejected', `No file ${path} in /mnt/data.`, { isPolicy: true });
  if (file.data.length > maxFileBytes)
    throw new ThreadlabError('sandbox_file_rejected', `${path} is larger than ${maxFileBytes} bytes.`, {
      isPolicy: true,
    });
  return file.data;
}

/**
 * Stores what the code wrote; brings back, like the real sandbox, files within the per-file limit and the
 * run's total (in path order), and lists the others as not brought back with why.
 */
export function writeRunFiles(
  files: SessionFiles,
  written: Record<string, string | Buffer>,
  limits: FileLimits,
): { artifacts: Artifact[]; skippedArtifacts: NonNullable<ExecutionResult['skippedArtifacts']> } {
  const artifacts: Artifact[] = [];
  const skippedArtifacts: NonNullable<ExecutionResult['skippedArtifacts']> = [];
  let budget = limits.maxRunFilesBytes;
  for (const path of Object.keys(written).sort()) {
    const content = written[path]!;
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const old = files.get(path)?.data;
    files.set(path, { data, modifiedMs: Date.now() });
    if (old?.equals(data)) continue;
    const size = formatMib(data.length);
    if (data.length > limits.maxFileBytes) {
      const reason = `${size} file; larger than the ${formatMib(limits.maxFileBytes)} file limit`;
      skippedArtifacts.push({ path, reason, bytes: data.length });
    } else if (data.length > budget) {
      const reason = `${size} file; total per run of ${formatMib(limits.maxRunFilesBytes)} reached`;
      skippedArtifacts.push({ path, reason, bytes: data.length });
    } else {
      budget -= data.length;
      artifacts.push({ path, bytes: data.length, mime: mimeFromName(path), change: old ? 'modified' : 'created' });
    }
  }
  return { artifacts, skippedArtifacts };
}
