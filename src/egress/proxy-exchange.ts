import type { Socket } from 'node:net';
import type { Duplex, Readable, Writable } from 'node:stream';
import type { EgressVerdict } from './egress-record.js';
import { BUDGET_MESSAGES, type EgressBudget } from './run-limits.js';

/** How long a client we ended may take to close its side before it is destroyed. */
const CLOSE_GRACE_MS = 2000;

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  411: 'Length Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
  504: 'Gateway Timeout',
};

/** Printable ASCII only: the text goes into a status line, and parts of it came from the sandbox. */
function printable(text: string, max: number): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}

/**
 * An HTTP answer from the gateway itself. The message is also the status line's reason phrase, so a
 * client that shows only the status (pip's "Tunnel connection failed: 403 …") still names the setting.
 */
export function gatewayResponse(status: number, reason: string): Buffer {
  const message = printable(`threadlab egress: ${reason}`, 400);
  const body = `${message}\n`;
  return Buffer.from(
    `HTTP/1.1 ${status} ${message || REASONS[status] || 'Error'}\r\n` +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
    'latin1',
  );
}

/**
 * One proxy exchange: the client stream, its upstream once connected, the bytes each way, and how
 * it ended. Everything it opened is destroyed when it ends, when the budget's run ends, or on `abort`.
 */
export class ProxyExchange {
  destination = '-';
  bytesUp = 0;
  bytesDown = 0;
  verdict: EgressVerdict = 'denied';
  reason: string | undefined;
  /** Aborted when the exchange is over for any reason; connects and lookups listen to it. */
  readonly controller = new AbortController();
  private upstream: Socket | undefined;
  private readonly untrack: (() => void) | undefined;
  private readonly closed: Promise<void>;

  constructor(
    readonly client: Duplex,
    private readonly budget: EgressBudget,
  ) {
    client.on('error', () => this.abort());
    this.closed = new Promise((resolve) => {
      if (client.destroyed) resolve();
      else client.once('close', () => resolve());
    });
    client.once('close', () => this.abort());
    this.untrack = budget.track({ destroy: () => this.cut(BUDGET_MESSAGES[budget.refusal() ?? 'closed']) });
  }

  /** Resolves once the client stream has closed and everything this exchange opened is destroyed. */
  async done(): Promise<void> {
    await this.closed;
    this.abort();
  }

  /** Answers with the gateway's own response and ends the exchange. */
  refuse(status: number, reason: string, verdict: EgressVerdict = 'denied'): void {
    this.verdict = verdict;
    this.reason = reason;
    if (this.client.writable) this.client.write(gatewayResponse(status, reason));
    this.endClient();
  }

  /** Adopts a connected upstream: destroyed with the exchange, and its end ends the client. */
  attach(upstream: Socket): void {
    this.upstream = upstream;
    upstream.on('error', () => this.abort());
    upstream.once('close', () => this.endClient());
    if (this.controller.signal.aborted) upstream.destroy();
  }

  /** Stops the flow now because of a limit or the run's end; the audit says `cut` with `reason`. */
  cut(reason: string): void {
    if (this.controller.signal.aborted) return;
    // A refused or failed exchange waiting for its client to close keeps its verdict.
    if (this.reason === undefined) {
      this.verdict = 'cut';
      this.reason = reason;
    }
    this.abort();
  }

  /**
   * Copies `from` to `to` with backpressure, spending each chunk from the budget before writing it
   * (the exchange is cut when the budget refuses). Stops after `maxBytes` when given; calls
   * `onEnd` when `from` ended or the byte count was reached.
   */
  pump(
    from: Readable,
    to: Writable,
    direction: 'up' | 'down',
    options: { maxBytes?: number; onEnd: () => void },
  ): void {
    let left = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const stop = () => {
      from.off('data', onData);
      from.off('end', stop);
      from.pause();
      options.onEnd();
    };
    const onData = (chunk: Buffer) => {
      const piece = chunk.length > left ? chunk.subarray(0, left) : chunk;
      if (!this.budget.spend(piece.length)) {
        this.cut(BUDGET_MESSAGES[this.budget.refusal() ?? 'bytes']);
        return;
      }
      if (direction === 'up') this.bytesUp += piece.length;
      else this.bytesDown += piece.length;
      left -= piece.length;
      if (!to.write(piece)) {
        from.pause();
        to.once('drain', () => left > 0 && from.resume());
      }
      if (left === 0) stop();
    };
    if (left === 0) return options.onEnd();
    from.on('data', onData);
    from.once('end', stop);
    from.resume();
  }

  /** Writes bytes the gateway holds already (a head, the start of a body) through the same accounting. */
  send(bytes: Buffer, to: Writable, direction: 'up' | 'down'): boolean {
    if (bytes.length === 0) return true;
    if (!this.budget.spend(bytes.length)) {
      this.cut(BUDGET_MESSAGES[this.budget.refusal() ?? 'bytes']);
      return false;
    }
    if (direction === 'up') this.bytesUp += bytes.length;
    else this.bytesDown += bytes.length;
    to.write(bytes);
    return true;
  }

  /** Ends the client's side after what was written; a client that does not close in time is destroyed. */
  endClient(): void {
    if (this.client.destroyed) return;
    this.client.end();
    // Reading on lets a half-open client's close arrive; what it still sends goes nowhere.
    this.client.resume();
    setTimeout(() => this.client.destroy(), CLOSE_GRACE_MS).unref();
  }

  private abort(): void {
    if (!this.controller.signal.aborted) this.controller.abort();
    // Unset only when the run had ended already and `track` destroyed the client inside the constructor.
    this.untrack?.();
    this.upstream?.destroy();
    this.client.destroy();
  }
}
