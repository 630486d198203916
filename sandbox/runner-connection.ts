import { PassThrough, type Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from '../src/logger.js';
import { ThreadlabError } from '../src/domain/errors.js';
import {
  frameSchema,
  isFinalFrame,
  type EgressFrame,
  type EgressMessage,
  type FinalFrame,
  type Frame,
  type ReadyFrame,
  type RunnerRequest,
  type StreamFrame,
} from './runner-protocol.js';

/** Longest frame accepted, in characters (file chunks are 4 MiB before base64). */
const MAX_LINE_CHARS = 64 * 1024 * 1024;

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
  private parts: string[] = [];
  private partsLength = 0;
  private readonly decoder = new StringDecoder('utf8');
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
  request(request: RunnerRequest, onFrame?: (frame: StreamFrame) => void, onSent?: () => void): Promise<FinalFrame> {
    const run = () =>
      new Promise<FinalFrame>((resolve, reject) => {
        if (this.isClosedFlag) {
          reject(new ThreadlabError('sandbox_protocol', 'The sandbox container is gone.', { isRetryable: true }));
          return;
        }
        const id = String(this.nextId++);
        this.pending = { id, onFrame, resolve, reject };
        this.stream.write(`${JSON.stringify({ ...request, id })}\n`);
        onSent?.();
      });
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Interrupts the request in flight now, bypassing the queue. */
  interrupt(): void {
    if (!this.isClosedFlag) this.stream.write('{"op":"interrupt"}\n');
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
    // Newlines are searched in new text only: a multi-megabyte frame arrives in many chunks.
    let text = this.decoder.write(chunk);
    let newline = text.indexOf('\n');
    while (newline >= 0) {
      const line = this.parts.join('') + text.slice(0, newline);
      this.parts = [];
      this.partsLength = 0;
      if (line.trim()) this.onLine(line);
      text = text.slice(newline + 1);
      newline = text.indexOf('\n');
    }
    if (text) {
      this.parts.push(text);
      this.partsLength += text.length;
    }
    if (this.partsLength > MAX_LINE_CHARS) {
      this.parts = [];
      this.partsLength = 0;
      this.fail(new ThreadlabError('sandbox_protocol', 'The sandbox runner sent an oversized frame.'));
    }
  }

  private onLine(line: string): void {
    let frame: Frame;
    try {
      frame = frameSchema.parse(JSON.parse(line));
    } catch (err) {
      this.logger.warn({ err, line: line.slice(0, 200) }, 'unparseable sandbox frame ignored');
      return;
    }
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
