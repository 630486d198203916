import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export type EnvelopeType = 'events_api' | 'slash_commands' | 'interactive';

/** An acknowledgement the client sent for an envelope. */
export interface SocketAck {
  envelope_id: string;
  payload?: unknown;
}

/**
 * The Socket Mode side of the fake: says hello on connect, pushes envelopes and records the acks.
 * Attached to the fake's HTTP server through its `upgrade` event.
 */
export class FakeSocketMode {
  readonly acks: SocketAck[] = [];
  readonly envelopes: { envelope_id: string; type: EnvelopeType; payload: unknown }[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly waiters = new Map<string, (ack: SocketAck) => void>();
  private connectWaiters: (() => void)[] = [];
  connections = 0;

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws));
  }

  /** Resolves once a client is connected (at once when one already is). */
  waitForConnection(timeoutMs = 10_000): Promise<void> {
    if (this.openSocket()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no Socket Mode connection')), timeoutMs);
      this.connectWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Pushes an envelope to the connected client and resolves with its ack. */
  send(type: EnvelopeType, payload: unknown, options: { timeoutMs?: number } = {}): Promise<SocketAck> {
    const ws = this.openSocket();
    if (!ws) return Promise.reject(new Error('no Socket Mode client connected'));
    const envelope_id = randomUUID();
    this.envelopes.push({ envelope_id, type, payload });
    const acked = new Promise<SocketAck>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`envelope ${envelope_id} (${type}) was not acknowledged`)),
        options.timeoutMs ?? 5000,
      );
      this.waiters.set(envelope_id, (ack) => {
        clearTimeout(timer);
        resolve(ack);
      });
    });
    ws.send(
      JSON.stringify({
        envelope_id,
        type,
        accepts_response_payload: type !== 'events_api',
        payload,
        retry_attempt: 0,
        retry_reason: '',
      }),
    );
    return acked;
  }

  /** Asks the client to reconnect, as Slack does every few hours. */
  requestRefresh(): void {
    this.openSocket()?.send(
      JSON.stringify({ type: 'disconnect', reason: 'refresh_requested', debug_info: { host: 'fake' } }),
    );
  }

  close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }

  private openSocket(): WebSocket | undefined {
    return [...this.sockets].reverse().find((ws) => ws.readyState === ws.OPEN);
  }

  private onConnection(ws: WebSocket): void {
    this.connections += 1;
    this.sockets.add(ws);
    ws.on('close', () => this.sockets.delete(ws));
    ws.on('message', (data) => {
      let ack: SocketAck;
      try {
        ack = JSON.parse(String(data)) as SocketAck;
      } catch {
        return;
      }
      if (!ack.envelope_id) return;
      this.acks.push(ack);
      this.waiters.get(ack.envelope_id)?.(ack);
      this.waiters.delete(ack.envelope_id);
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.sockets.size,
        debug_info: { host: 'fake-slack', approximate_connection_time: 18060 },
        connection_info: { app_id: 'A0APP001' },
      }),
    );
    const waiters = this.connectWaiters;
    this.connectWaiters = [];
    for (const w of waiters) w();
  }
}
