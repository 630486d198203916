import { Duplex } from 'node:stream';
import type { Logger } from '../src/logger.js';
import type { RunnerConnection } from './runner-connection.js';
import type { EgressFrame } from './runner-protocol.js';

/** Bytes in flight per connection and direction (sandbox/image/runner/egress_relay.py WINDOW). */
export const EGRESS_WINDOW_BYTES = 256 * 1024;
/** Largest piece of one data message to the relay. */
const CHUNK_BYTES = 48 * 1024;
/** Connections one container may have open at once through its link. */
export const MAX_RELAYED_CONNECTIONS = 32;

/**
 * One connection the sandbox's code opened to its proxy address, as a Duplex for the gateway: reading gives the
 * code's bytes, writing sends bytes back to it. Both directions keep to the relay's window: writes wait for the
 * relay's acknowledgements, and what the code sends is acknowledged only once the gateway has taken it.
 */
class RelayedConnection extends Duplex {
  private unackedOut = 0;
  private waitingWrite: (() => void) | undefined;
  private pendingAck = 0;
  private inFlight = 0;
  closedByRelay = false;

  constructor(
    private readonly link: EgressLink,
    readonly conn: number,
  ) {
    super({ allowHalfOpen: true, readableHighWaterMark: EGRESS_WINDOW_BYTES });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    for (let offset = 0; offset < chunk.length; offset += CHUNK_BYTES) {
      const piece = chunk.subarray(offset, offset + CHUNK_BYTES);
      this.link.send({ event: 'data', conn: this.conn, base64: piece.toString('base64') });
    }
    this.unackedOut += chunk.length;
    if (this.unackedOut > EGRESS_WINDOW_BYTES) this.waitingWrite = () => callback();
    else callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.closedByRelay) this.link.send({ event: 'end', conn: this.conn });
    callback();
  }

  override _read(): void {
    if (this.pendingAck > 0) this.acknowledge();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.closedByRelay) this.link.send({ event: 'close', conn: this.conn });
    this.link.forget(this.conn);
    const waiting = this.waitingWrite;
    this.waitingWrite = undefined;
    waiting?.();
    callback(error);
  }

  /** Bytes the code sent. The relay keeps to the window; a relay that does not is cut off. */
  received(data: Buffer): void {
    this.inFlight += data.length;
    if (this.inFlight > EGRESS_WINDOW_BYTES) {
      this.destroy(new Error('the sandbox relay sent past its window'));
      return;
    }
    this.pendingAck += data.length;
    if (this.push(data)) this.acknowledge();
  }

  /** The relay wrote `bytes` to the code's socket: room for more. */
  acknowledged(bytes: number): void {
    this.unackedOut = Math.max(0, this.unackedOut - bytes);
    if (this.waitingWrite && this.unackedOut <= EGRESS_WINDOW_BYTES) {
      const waiting = this.waitingWrite;
      this.waitingWrite = undefined;
      waiting();
    }
  }

  private acknowledge(): void {
    this.link.send({ event: 'ack', conn: this.conn, bytes: this.pendingAck });
    this.inFlight -= this.pendingAck;
    this.pendingAck = 0;
  }
}

/**
 * The bot's end of a container's egress relay. Connections are accepted only while a run is active (each goes to
 * the handler given by `activate`); one opened outside a run, or past {@link MAX_RELAYED_CONNECTIONS}, is closed.
 * `deactivate` (the run ended) closes every connection still open.
 */
export class EgressLink {
  private readonly connections = new Map<number, RelayedConnection>();
  private handler: ((socket: Duplex) => void) | undefined;

  constructor(
    private readonly connection: RunnerConnection,
    private readonly logger: Logger,
  ) {
    connection.onEgress = (frame) => this.onFrame(frame);
    void connection.closed.then(() => this.closeAll());
  }

  /** Hands each connection the code opens from now on to `handler`. */
  activate(handler: (socket: Duplex) => void): void {
    this.handler = handler;
  }

  /** Stops accepting connections and closes those still open. */
  deactivate(): void {
    this.handler = undefined;
    this.closeAll();
  }

  /** Connections open now. */
  get size(): number {
    return this.connections.size;
  }

  send(message: { event: 'data' | 'end' | 'close' | 'ack'; conn: number; base64?: string; bytes?: number }): void {
    this.connection.sendEgress({ op: 'egress', ...message });
  }

  forget(conn: number): void {
    this.connections.delete(conn);
  }

  private closeAll(): void {
    for (const socket of [...this.connections.values()]) socket.destroy();
    this.connections.clear();
  }

  private onFrame(frame: EgressFrame): void {
    const existing = this.connections.get(frame.conn);
    switch (frame.event) {
      case 'open': {
        if (existing || !this.handler || this.connections.size >= MAX_RELAYED_CONNECTIONS) {
          this.send({ event: 'close', conn: frame.conn });
          return;
        }
        const socket = new RelayedConnection(this, frame.conn);
        socket.on('error', (err) => this.logger.debug({ err, conn: frame.conn }, 'relayed connection failed'));
        this.connections.set(frame.conn, socket);
        this.handler(socket);
        return;
      }
      case 'data':
        existing?.received(Buffer.from(frame.base64 ?? '', 'base64'));
        return;
      case 'ack':
        existing?.acknowledged(frame.bytes ?? 0);
        return;
      case 'end':
        existing?.push(null);
        return;
      case 'close':
        if (existing) {
          existing.closedByRelay = true;
          existing.destroy();
        }
        return;
    }
  }
}
