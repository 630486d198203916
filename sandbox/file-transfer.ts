import type { SandboxFile } from '../src/domain/execution.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { RunnerConnection } from './runner-connection.js';
import type { FinalFrame, StreamFrame } from './runner-protocol.js';

/** Bytes per chunk the host reads from its own copies (state file, mirror) to send them into the container. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/** Bytes per put frame: raw as well, one request and its answer per MiB. */
export const PUT_CHUNK_BYTES = 1024 * 1024;

function rejected(path: string, frame: FinalFrame): ThreadlabError {
  const message = frame.type === 'error' ? frame.message : `unexpected ${frame.type} frame`;
  if (frame.type === 'error' && frame.code === 'unsafe_path') {
    return new ThreadlabError('sandbox_file_rejected', `${path}: ${message}`, { isPolicy: true });
  }
  return new ThreadlabError('sandbox_protocol', `File transfer of ${path} failed: ${message}`);
}

/** Thrown when a file turns out larger than the bytes allowed for it (whatever size it claimed). */
export class FileTooLargeError extends ThreadlabError {
  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super('sandbox_file_rejected', `${path} is larger than ${maxBytes} bytes.`, { isPolicy: true });
  }
}

/** Writes a file into the container in frames of at most {@link PUT_CHUNK_BYTES} (an empty source makes an empty file). */
export async function putChunks(
  connection: RunnerConnection,
  path: string,
  source: AsyncIterable<Buffer>,
): Promise<SandboxFile> {
  // Every chunk but the last goes unanswered, one after another as the stream takes them; the last is answered,
  // with the first failure of any. One chunk is held back to know which is last.
  let append = false;
  let held: Buffer | undefined;
  for await (const chunk of source) {
    for (let offset = 0; offset < chunk.length; offset += PUT_CHUNK_BYTES) {
      if (held) {
        await connection.post({ op: 'put_file', path, append, more: true }, held);
        append = true;
      }
      held = chunk.subarray(offset, offset + PUT_CHUNK_BYTES);
    }
  }
  const last = await connection.request(
    { op: 'put_file', path, append },
    undefined,
    undefined,
    held ?? Buffer.alloc(0),
  );
  if (last.type !== 'ok' || !last.file) throw rejected(path, last);
  return last.file;
}

export interface StreamFileOptions {
  /** Bytes allowed for this file; more aborts the transfer with {@link FileTooLargeError}. */
  maxBytes: number;
  /** Receives each chunk in order; while the promises it returns hold more than a few chunks, the runner waits. */
  onChunk: (chunk: Buffer) => Promise<void> | void;
  /** Deletes the file in the container once it was sent (one request instead of two). */
  remove?: boolean;
}

/** Bytes of chunks handed to `onChunk` and not yet written before the connection stops reading the container. */
export const STREAM_AHEAD_BYTES = 16 * 1024 * 1024;

export interface ChunkReceiverOptions {
  /** What is being received, for messages. */
  path: string;
  /** Bytes allowed in all (after the last reset); an honest runner never sends more, so more ends the connection. */
  maxBytes: number;
  /** Receives each chunk in order; while the promises it returns are behind, the runner waits. */
  onChunk: (chunk: Buffer) => Promise<void> | void;
  /** The runner said what it sent so far is void (a save that wrote its file anew); called in order with chunks. */
  onReset?: () => Promise<void> | void;
  /** Resets allowed; one more ends the connection. @defaultValue 0 */
  maxResets?: number;
}

/**
 * The host's side of `chunk` frames: counts what arrives against its limits (the counts are claims of the
 * container; a broken one ends the connection), hands the bytes on in order, and stops reading the container
 * while more than {@link STREAM_AHEAD_BYTES} wait to be written, so little is held here however fast it writes.
 */
export class ChunkReceiver {
  /** Bytes received since the last reset. */
  received = 0;
  private behind = 0;
  private resets = 0;
  private failure: unknown;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: RunnerConnection,
    private readonly options: ChunkReceiverOptions,
  ) {}

  readonly onFrame = (frame: StreamFrame): void => {
    if (frame.type !== 'chunk' || this.connection.isClosed) return;
    const { connection, options } = this;
    if (frame.reset) {
      this.resets += 1;
      if (this.resets > (options.maxResets ?? 0)) {
        connection.abandon(`The sandbox runner restarted the transfer of ${options.path} more often than it may.`);
        return;
      }
      this.received = 0;
      this.queue(async () => options.onReset?.());
      return;
    }
    this.received += frame.data.length;
    if (this.received > options.maxBytes) {
      connection.abandon(
        `The sandbox runner streamed more than the ${options.maxBytes} bytes allowed for ${options.path}.`,
      );
      return;
    }
    if (frame.data.length === 0) return;
    const chunk = frame.data;
    this.behind += chunk.length;
    this.queue(async () => {
      try {
        await options.onChunk(chunk);
      } finally {
        this.behind -= chunk.length;
      }
    });
    if (this.behind > STREAM_AHEAD_BYTES) connection.hold(this.writes);
  };

  private queue(step: () => Promise<unknown>): void {
    this.writes = this.writes.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await step();
      } catch (err) {
        this.failure = err;
      }
    });
  }

  /** Stops handing chunks on (the request failed): those still queued are dropped. */
  abort(err: unknown): void {
    this.failure ??= err;
  }

  /** Waits for every chunk to be handed on; throws what `onChunk` or `onReset` threw. */
  async settle(): Promise<void> {
    await this.writes;
    if (this.failure !== undefined) throw this.failure;
  }
}

export interface StreamFileOptions {
  /** Bytes allowed for this file; more aborts the transfer with {@link FileTooLargeError}. */
  maxBytes: number;
  /** Receives each chunk in order; while the promises it returns are behind, the runner waits. */
  onChunk: (chunk: Buffer) => Promise<void> | void;
  /** Deletes the file in the container once it was sent (one request instead of two). */
  remove?: boolean;
}

/**
 * Streams a file out of the container in one request: the runner sends it chunk after chunk as the pipe takes
 * them ({@link ChunkReceiver}). The runner's size claim only stops a transfer early; the bytes actually received
 * are what is counted against `maxBytes`. Returns the bytes received.
 */
export async function streamFile(
  connection: RunnerConnection,
  path: string,
  options: StreamFileOptions,
): Promise<number> {
  const { maxBytes } = options;
  const receiver = new ChunkReceiver(connection, { path, maxBytes, onChunk: options.onChunk });
  let final: FinalFrame;
  try {
    final = await connection.request(
      { op: 'stream_file', path, maxBytes, ...(options.remove ? { remove: true } : {}) },
      receiver.onFrame,
    );
  } catch (err) {
    receiver.abort(err);
    await receiver.settle().catch(() => undefined);
    throw err;
  }
  await receiver.settle();
  if (final.type !== 'file') throw rejected(path, final);
  if (final.size > maxBytes) throw new FileTooLargeError(path, maxBytes);
  if (receiver.received !== final.size) {
    throw new ThreadlabError(
      'sandbox_protocol',
      `File transfer of ${path} failed: ${receiver.received} of ${final.size} bytes came.`,
    );
  }
  return receiver.received;
}

/** Reads a whole file of the container into memory; refuses files larger than `maxBytes`. */
export async function readFile(connection: RunnerConnection, path: string, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await streamFile(connection, path, { maxBytes, onChunk: (chunk) => void chunks.push(chunk) });
  return Buffer.concat(chunks);
}
