import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { StateRestore } from '../src/domain/execution.js';
import { BatchedWriter } from './batched-writer.js';
import { CHUNK_BYTES, ChunkReceiver, putChunks } from './file-transfer.js';
import { processAlive } from '../src/ops/pid-lock.js';
import type { RunnerConnection } from './runner-connection.js';
import type { StateFrame } from './runner-protocol.js';

/**
 * The saved variables' directory, relative to /mnt/data in the sandbox and to a session's host copy alike: not one
 * of the thread's files (FileMirror leaves it out; retention counts it apart, mirror-retention.ts).
 */
export const STATE_DIR_PARTS = ['.threadlab', 'state'] as const;
const STATE_FILE = 'state.dill';
/** Where the kernel writes and reads the state file, relative to /mnt/data (sandbox/image/runner/state.py). */
export const STATE_PATH_IN_SANDBOX = [...STATE_DIR_PARTS, STATE_FILE].join('/');

const unsavedSchema = z.object({ name: z.string(), type: z.string() });
const metaSchema = z.object({
  savedAt: z.string(),
  variables: z.number().int().nonnegative(),
  notSaved: z.array(unsavedSchema),
  notSavedMore: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
});
export type StateMeta = z.infer<typeof metaSchema>;

/**
 * A session's saved variables on the host: the state file's bytes, never unpickled here (they are whatever the
 * user's code made of them), and a small JSON description the bot wrote itself. Lives in the session's host copy,
 * so a shared THREADLAB_DATA_DIR gives it to another worker, `/reset` and retention delete it with the files.
 */
export class StateStore {
  readonly dir: string;
  private readonly file: string;
  private readonly metaFile: string;

  constructor(mirrorRoot: string) {
    this.dir = join(mirrorRoot, ...STATE_DIR_PARTS);
    this.file = join(this.dir, STATE_FILE);
    this.metaFile = join(this.dir, 'state.json');
  }

  /** The description of the saved state, or undefined when there is none (or it is unreadable). */
  async meta(): Promise<StateMeta | undefined> {
    const text = await readFile(this.metaFile, 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      return metaSchema.parse(JSON.parse(text));
    } catch {
      return undefined;
    }
  }

  /**
   * A new state file being received: it replaces the saved state on {@link StateWriter.commit} if its SHA-256 is
   * the digest the kernel said it wrote; a transfer that failed, ran over or was changed on the way leaves the
   * previous state.
   */
  async writer(): Promise<StateWriter> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temp = `${this.file}.tmp`;
    return new StateWriter(temp, await open(temp, 'w', 0o600), async (meta) => {
      // The description goes first: with the old file still in place a crash leaves a digest that does not
      // match, which restore() treats as no state, never as someone else's.
      await writeFile(`${this.metaFile}.tmp`, JSON.stringify(meta), { mode: 0o600 });
      await rename(`${this.metaFile}.tmp`, this.metaFile);
      await rename(temp, this.file);
    });
  }

  /** The state file's bytes in chunks, checked against the description's digest as they are read. */
  async *chunks(meta: StateMeta): AsyncIterable<Buffer> {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(this.file, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      yield chunk;
    }
    if (hash.digest('hex') !== meta.digest) throw new Error('the saved state does not match its description');
  }

  async clear(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  /**
   * Runs a save while a lock file says so, for the processes that share THREADLAB_DATA_DIR: another daemon or
   * worker about to restore this thread waits for the save to land ({@link waitForSave}) instead of loading the
   * state from before it.
   */
  async whileSaving<T>(save: () => Promise<T>): Promise<T> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const lock: SaveLock = { pid: process.pid, host: hostname(), atMs: Date.now() };
    await writeFile(this.lockFile, JSON.stringify(lock), { mode: 0o600 });
    try {
      return await save();
    } finally {
      await unlink(this.lockFile).catch(() => undefined);
    }
  }

  /**
   * Waits while another process is saving this thread's state, at most `maxWaitMs`. A lock of a process that is
   * gone (same host), or older than {@link STALE_LOCK_MS}, is not waited for.
   */
  async waitForSave(maxWaitMs: number): Promise<void> {
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      const text = await readFile(this.lockFile, 'utf8').catch(() => undefined);
      if (text === undefined) return;
      let lock: SaveLock | undefined;
      try {
        lock = saveLockSchema.parse(JSON.parse(text));
      } catch {
        lock = undefined;
      }
      const stale =
        !lock || Date.now() - lock.atMs > STALE_LOCK_MS || (lock.host === hostname() && !processAlive(lock.pid));
      if (stale || Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private get lockFile(): string {
    return join(this.dir, 'save.lock');
  }
}

/** The bytes of a state file on their way to the host: hashed as written, put in place only if they match. */
export class StateWriter {
  private hash = createHash('sha256');
  private bytes = 0;
  private done = false;
  private readonly out: BatchedWriter;

  constructor(
    private readonly temp: string,
    private handle: FileHandle,
    private readonly install: (meta: StateMeta) => Promise<void>,
  ) {
    this.out = new BatchedWriter(handle);
  }

  /** Takes a piece (it may be a view of a socket's read: kept as is until written). */
  async write(chunk: Buffer): Promise<void> {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    await this.out.write(chunk);
  }

  /** Drops what was written: the file comes again from its start. */
  async reset(): Promise<void> {
    await this.handle.close();
    this.handle = await open(this.temp, 'w', 0o600);
    this.out.restart(this.handle);
    this.hash = createHash('sha256');
    this.bytes = 0;
  }

  /** Puts the file in place with its description if it is what `meta` says; false (and nothing changed) if not. */
  async commit(meta: StateMeta): Promise<boolean> {
    this.done = true;
    await this.out.flush();
    await this.handle.close();
    if (this.bytes !== meta.bytes || this.hash.digest('hex') !== meta.digest) {
      await unlink(this.temp).catch(() => undefined);
      return false;
    }
    await this.install(meta);
    return true;
  }

  async discard(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.handle.close().catch(() => undefined);
    await unlink(this.temp).catch(() => undefined);
  }
}

/** A save in progress, as the saving process wrote it. */
interface SaveLock {
  pid: number;
  host: string;
  atMs: number;
}
const saveLockSchema = z.object({ pid: z.number().int().positive(), host: z.string(), atMs: z.number() });
/** A lock older than this is a process that died on another host while saving. */
const STALE_LOCK_MS = 120_000;

export interface StateLimits {
  /** THREADLAB_STATE_MAX_MB in bytes. */
  maxBytes: number;
  /** How long the kernel may take to save or load (the run timeout). */
  timeoutMs: number;
  graceMs: number;
}

/** What came back in a new container; `failed` says why nothing did. */
export type RestoreOutcome = Omit<StateRestore, 'reason'> & { failed?: string };

/** What one save did. `failed` and `tooLarge` leave no saved state behind: it would be older than the variables. */
export type SaveOutcome =
  | { kind: 'saved'; bytes: number; variables: number; seconds: number; notSaved: string[] }
  | { kind: 'unchanged' }
  | { kind: 'tooLarge'; bytes: number }
  | { kind: 'failed'; reason: string; kernelRestart?: StateFrame['kernelRestart'] };

function named(entries: { name: string; type: string }[] | undefined, more: number | undefined): string[] {
  const list = (entries ?? []).map((e) => `${e.name} (${e.type})`);
  return more ? [...list, `${more} more`] : list;
}

async function stateRequest(
  connection: RunnerConnection,
  request: Parameters<RunnerConnection['request']>[0],
  onFrame?: Parameters<RunnerConnection['request']>[1],
): Promise<StateFrame> {
  const frame = await connection.request(request, onFrame);
  if (frame.type !== 'state') {
    throw new Error(frame.type === 'error' ? frame.message : `unexpected answer ${frame.type}`);
  }
  return frame;
}

/**
 * Has the kernel save the thread's variables; the runner streams the file to the host while the kernel writes
 * it (counted against the limit again as it arrives, checked against the kernel's digest when it is done) and
 * deletes it from the container.
 */
export async function saveState(
  connection: RunnerConnection,
  store: StateStore,
  limits: StateLimits,
  now: () => Date = () => new Date(),
): Promise<SaveOutcome> {
  const previous = await store.meta();
  const writer = await store.writer();
  const receiver = new ChunkReceiver(connection, {
    path: STATE_PATH_IN_SANDBOX,
    maxBytes: limits.maxBytes,
    onChunk: (chunk) => writer.write(chunk),
    onReset: () => writer.reset(),
    maxResets: 1,
  });
  let frame: StateFrame;
  try {
    frame = await stateRequest(
      connection,
      {
        op: 'save_state',
        maxBytes: limits.maxBytes,
        previousDigest: previous?.digest ?? null,
        timeoutMs: limits.timeoutMs,
        graceMs: limits.graceMs,
        stream: true,
      },
      receiver.onFrame,
    );
    await receiver.settle();
  } catch (err) {
    receiver.abort(err);
    await receiver.settle().catch(() => undefined);
    await writer.discard();
    throw err;
  }
  if (frame.failed !== undefined || (!frame.tooLarge && !frame.digest)) {
    await writer.discard();
    await store.clear();
    return {
      kind: 'failed',
      reason: frame.failed ?? 'the sandbox did not say what it saved',
      ...(frame.kernelRestart ? { kernelRestart: frame.kernelRestart } : {}),
    };
  }
  if (frame.tooLarge) {
    await writer.discard();
    await store.clear();
    return { kind: 'tooLarge', bytes: frame.bytes ?? limits.maxBytes + 1 };
  }
  if (frame.unchanged && previous && previous.digest === frame.digest) {
    await writer.discard();
    return { kind: 'unchanged' };
  }
  const meta: StateMeta = {
    savedAt: now().toISOString(),
    variables: frame.variables ?? 0,
    notSaved: (frame.notSaved ?? []).map(({ name, type }) => ({ name, type })),
    notSavedMore: frame.notSavedMore ?? 0,
    bytes: frame.bytes ?? 0,
    digest: frame.digest as string,
  };
  if (!frame.streamed || !(await writer.commit(meta))) {
    await writer.discard();
    await store.clear();
    return { kind: 'failed', reason: 'the state file changed while it was copied' };
  }
  return {
    kind: 'saved',
    bytes: meta.bytes,
    variables: meta.variables,
    seconds: frame.seconds ?? 0,
    notSaved: named(meta.notSaved, meta.notSavedMore),
  };
}

/**
 * Puts the saved state into a new container and has its kernel load it. Returns what came back, for the next
 * result; undefined when there is no saved state.
 */
export async function restoreState(
  connection: RunnerConnection,
  store: StateStore,
  limits: StateLimits,
): Promise<RestoreOutcome | undefined> {
  await store.waitForSave(limits.timeoutMs);
  const meta = await store.meta();
  if (!meta) return undefined;
  try {
    await putChunks(connection, STATE_PATH_IN_SANDBOX, store.chunks(meta));
  } catch (err) {
    await connection.request({ op: 'delete_file', path: STATE_PATH_IN_SANDBOX }).catch(() => undefined);
    return { savedAt: meta.savedAt, variables: 0, notRestored: [], failed: (err as Error).message };
  }
  const frame = await stateRequest(connection, {
    op: 'restore_state',
    timeoutMs: limits.timeoutMs,
    graceMs: limits.graceMs,
  });
  if (frame.failed !== undefined) {
    return { savedAt: meta.savedAt, variables: 0, notRestored: [], failed: frame.failed };
  }
  return {
    savedAt: meta.savedAt,
    variables: frame.restored ?? 0,
    notRestored: named(frame.notRestored, frame.notRestoredMore),
  };
}
