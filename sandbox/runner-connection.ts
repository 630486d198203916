import { PassThrough, type Duplex } from 'node:stream';
import type { Logger } from '../src/logger.js';
import { ThreadlabError } from '../src/domain/errors.js';
import {
  frameSchema,
  isFinalFrame,
  type EgressFrame,
  type EgressMessage,
  type ChunkFrame,
  type FileFrame,
  type FinalFrame,
  type Frame,
  MAX_PAYLOAD_BYTES,
  type ReadyFrame,
  type RunnerRequest,
  type StreamFrame,
} from './runner-protocol.js';

/** Longest frame line accepted, in bytes (a run's result with its displays; file bytes travel raw, beside). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface RunnerConnectionOptions {
  /** The hijacked attach stream (multiplexed stdout/stderr, raw stdin). */
  stream: Duplex;
  /** Splits the multiplexed stream: `docker.modem.demuxStream`. */
  demux: (stream: Duplex, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream) => void;
  logger: Logger;
}

interface Pending {
  id: string;
  onFrame: ((frame: StreamFrame) => void) | undefined;
  resolve: (frame: FinalFrame) => void;
  reject: (err: Error) => void;
}

/**
 * The protocol over one container's attached stdio: requests are serialised (one in flight),
 * answers are matched by id, streaming frames go to the request's callback.
 */
export class RunnerConnection {
  /** Resolves with the runner's first frame; rejects if the container ends first. */
  readonly ready: Promise<ReadyFrame>;
  /** Resolves when the stream ends, for whatever reason. */
  readonly closed: Promise<void>;
  private resolveReady!: (frame: ReadyFrame) => void;
  private rejectReady!: (err: Error) => void;
  private resolveClosed!: () => void;
  private pending: Pending | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  /** The start of a frame line whose newline has not come yet. */
  private parts: Buffer[] = [];
  private partsLength = 0;
  /** A `file` or `chunk` frame whose raw bytes are still arriving. */
  private receiving:
    { frame: Omit<FileFrame, 'data'> | Omit<ChunkFrame, 'data'>; chunks: Buffer[]; missing: number } | undefined;
  /** Holds of the input (a consumer behind on streamed bytes): the stream is paused while any is pending. */
  private holds = 0;
  private isClosedFlag = false;
  private readonly stream: Duplex;
  private readonly logger: Logger;

  constructor(options: RunnerConnectionOptions) {
    this.stream = options.stream;
    this.logger = options.logger;
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    options.demux(this.stream, stdout, stderr);
    stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.diagnostics = (this.diagnostics + text).slice(-2000);
      this.logger.warn({ text: text.slice(0, 2000) }, 'sandbox runner stderr');
    });
    this.stream.on('end', () => this.onClose('the sandbox container stopped'));
    this.stream.on('close', () => this.onClose('the sandbox container stopped'));
    this.stream.on('error', (err) => this.onClose(`the sandbox connection failed: ${err.message}`));
  }

  /** The last lines the runner wrote to its own stderr (start-up failures land here). */
  diagnostics = '';

  get isClosed(): boolean {
    return this.isClosedFlag;
  }

  /**
   * Sends a request once the previous one is answered; `onFrame` receives its streaming frames and
   * `onSent` is called when it was written (an interrupt before that would reach the wrong request).
   */
  request(
    request: RunnerRequest,
    onFrame?: (frame: StreamFrame) => void,
    onSent?: () => void,
    payload?: Buffer,
  ): Promise<FinalFrame> {
    const run = () =>
      new Promise<FinalFrame>((resolve, reject) => {
        if (this.isClosedFlag) {
          reject(new ThreadlabError('sandbox_protocol', 'The sandbox container is gone.', { isRetryable: true }));
          return;
        }
        if (payload && payload.length > MAX_PAYLOAD_BYTES)
          throw new Error(`a frame carries at most ${MAX_PAYLOAD_BYTES} bytes, not ${payload.length}`);
        const id = String(this.nextId++);
        this.pending = { id, onFrame, resolve, reject };
        // A payload's bytes follow its line raw, counted in `bytes` (sandbox/image/runner/protocol.py).
        this.stream.write(`${JSON.stringify({ ...request, id, ...(payload ? { bytes: payload.length } : {}) })}\n`);
        if (payload && payload.length > 0) this.stream.write(payload);
        onSent?.();
      });
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Sends a request the runner does not answer (a `put_file` chunk with `more`), in the queue's order, and resolves
   * once the stream took it (after `drain` when its buffer was full), so a sender of many holds little.
   */
  post(request: RunnerRequest, payload: Buffer): Promise<void> {
    const run = () =>
      new Promise<void>((resolve, reject) => {
        if (this.isClosedFlag) {
          reject(new ThreadlabError('sandbox_protocol', 'The sandbox container is gone.', { isRetryable: true }));
          return;
        }
        if (payload.length > MAX_PAYLOAD_BYTES)
          throw new Error(`a frame carries at most ${MAX_PAYLOAD_BYTES} bytes, not ${payload.length}`);
        const line = this.stream.write(`${JSON.stringify({ ...request, bytes: payload.length })}\n`);
        const data = payload.length > 0 ? this.stream.write(payload) : true;
        if (line && data) {
          resolve();
          return;
        }
        const gone = () =>
          reject(new ThreadlabError('sandbox_protocol', 'The sandbox container is gone.', { isRetryable: true }));
        this.stream.once('drain', () => {
          this.stream.off('close', gone);
          resolve();
        });
        this.stream.once('close', gone);
      });
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Reads nothing more from the container until `until` settles: a consumer of streamed bytes that is behind
   * (a disk write) holds the runner back through the pipe instead of buffering here.
   */
  hold(until: Promise<unknown>): void {
    if (this.isClosedFlag) return;
    this.holds += 1;
    if (this.holds === 1) this.stream.pause();
    const release = () => {
      this.holds -= 1;
      if (this.holds === 0 && !this.isClosedFlag) this.stream.resume();
    };
    until.then(release, release);
  }

  /**
   * Ends the connection because the runner broke a claim the frames can't show (it streamed more than it may):
   * the container is replaced, as for a frame that cannot be read.
   */
  abandon(reason: string): void {
    this.broken(reason);
  }

  /**
   * Interrupts the request in flight now, bypassing the queue. It names the request: the runner may not have begun
   * it yet (it was just written), and then it begins interrupted.
   */
  interrupt(): void {
    if (this.isClosedFlag) return;
    this.stream.write(`${JSON.stringify({ op: 'interrupt', ...(this.pending ? { id: this.pending.id } : {}) })}\n`);
  }

  /** Receives the relayed connections' frames, whatever request is in flight (sandbox/egress-link.ts). */
  onEgress: ((frame: EgressFrame) => void) | undefined;

  /** Sends an egress message now, bypassing the queue (a relayed connection is not a request). */
  sendEgress(message: EgressMessage): void {
    if (!this.isClosedFlag) this.stream.write(`${JSON.stringify(message)}\n`);
  }

  /** Closes stdin: the runner finishes its queue and exits. */
  close(): void {
    if (!this.isClosedFlag) this.stream.end();
  }

  private onData(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0 && !this.isClosedFlag) {
      if (this.receiving) {
        // The raw bytes of a `file` or `chunk` frame: exactly as many as it said, then lines again. A chunk's
        // bytes are handed on piece by piece as they come (views of the socket's reads, never collected here).
        const take = Math.min(this.receiving.missing, rest.length);
        const piece = rest.subarray(0, take);
        this.receiving.missing -= take;
        rest = rest.subarray(take);
        if (this.receiving.frame.type === 'chunk') {
          const { frame } = this.receiving;
          if (this.receiving.missing === 0) this.receiving = undefined;
          this.onFrame({ ...frame, bytes: piece.length, data: piece });
          continue;
        }
        this.receiving.chunks.push(piece);
        if (this.receiving.missing === 0) {
          const { frame, chunks } = this.receiving;
          this.receiving = undefined;
          this.onFrame({ ...frame, data: Buffer.concat(chunks) });
        }
        continue;
      }
      // Newlines are searched in new bytes only: a multi-megabyte frame arrives in many chunks.
      const newline = rest.indexOf(0x0a);
      if (newline < 0) {
        this.parts.push(rest);
        this.partsLength += rest.length;
        if (this.partsLength > MAX_LINE_BYTES) {
          this.parts = [];
          this.partsLength = 0;
          this.fail(new ThreadlabError('sandbox_protocol', 'The sandbox runner sent an oversized frame.'));
        }
        return;
      }
      const line =
        this.partsLength > 0 ? Buffer.concat([...this.parts, rest.subarray(0, newline)]) : rest.subarray(0, newline);
      this.parts = [];
      this.partsLength = 0;
      rest = rest.subarray(newline + 1);
      const text = line.toString('utf8');
      if (text.trim()) this.onLine(text);
    }
  }

  private onLine(line: string): void {
    let parsed: ReturnType<typeof frameSchema.parse>;
    try {
      parsed = frameSchema.parse(JSON.parse(line));
    } catch (err) {
      // A `file` or `chunk` frame that cannot be read leaves its raw bytes unaccounted for: the stream cannot go on.
      if (/^\{"type":"(file|chunk)"/.test(line)) {
        this.broken('The sandbox runner sent a file frame that cannot be read.');
        return;
      }
      this.logger.warn({ err, line: line.slice(0, 200) }, 'unparseable sandbox frame ignored');
      return;
    }
    if (parsed.type === 'file' || parsed.type === 'chunk') {
      if (parsed.bytes === 0) this.onFrame({ ...parsed, data: Buffer.alloc(0) });
      else this.receiving = { frame: parsed, chunks: [], missing: parsed.bytes };
      return;
    }
    this.onFrame(parsed);
  }

  private onFrame(frame: Frame): void {
    if (frame.type === 'ready') {
      this.resolveReady(frame);
      return;
    }
    if (frame.type === 'egress') {
      this.onEgress?.(frame);
      return;
    }
    const pending = this.pending;
    if (!pending || frame.id !== pending.id) return;
    if (isFinalFrame(frame)) {
      this.pending = undefined;
      pending.resolve(frame);
    } else {
      pending.onFrame?.(frame);
    }
  }

  /** The stream can no longer be read in step with the runner: the connection ends (the container is replaced). */
  private broken(reason: string): void {
    this.logger.warn({ reason }, 'sandbox protocol stream broken');
    this.onClose(reason.replace(/\.$/, ''));
    this.stream.destroy();
  }

  private fail(err: Error): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(err);
  }

  private onClose(reason: string): void {
    if (this.isClosedFlag) return;
    this.isClosedFlag = true;
    const err = new ThreadlabError('sandbox_protocol', `${reason}.`, { isRetryable: true });
    this.rejectReady(err);
    this.fail(err);
    this.resolveClosed();
  }
}
