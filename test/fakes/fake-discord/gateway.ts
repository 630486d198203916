import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

/** What the gateway sends after IDENTIFY: READY then one GUILD_CREATE per guild. */
export interface GatewayIdentity {
  user: Record<string, unknown>;
  applicationId: string;
  guilds: Record<string, unknown>[];
  resumeUrl: string;
}

/**
 * A minimal Discord gateway (JSON frames, no compression): HELLO, IDENTIFY → READY + GUILD_CREATE,
 * heartbeats answered with op 11, dispatches with an increasing sequence number.
 */
export class FakeGateway {
  readonly frames: { direction: 'in' | 'out'; payload: Record<string, unknown> }[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private seq = 0;
  private identified = false;
  private readyWaiters: (() => void)[] = [];

  constructor(private readonly identity: () => GatewayIdentity) {
    this.wss.on('connection', (ws) => this.onConnection(ws));
  }

  /** Hands an HTTP upgrade on `/gateway` to the WebSocket server. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  /** Resolves once a client identified and received READY and its guilds. */
  whenIdentified(): Promise<void> {
    if (this.identified) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** Sends a dispatch event (op 0) to every connected client. */
  dispatch(t: string, d: unknown): void {
    this.seq += 1;
    const frame = { op: 0, t, s: this.seq, d };
    for (const ws of this.sockets) this.send(ws, frame);
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
  }

  private send(ws: WebSocket, payload: Record<string, unknown>): void {
    this.frames.push({ direction: 'out', payload });
    ws.send(JSON.stringify(payload));
  }

  private onConnection(ws: WebSocket): void {
    this.sockets.add(ws);
    ws.on('close', () => this.sockets.delete(ws));
    ws.on('message', (raw) => this.onFrame(ws, raw.toString()));
    this.send(ws, { op: 10, s: null, t: null, d: { heartbeat_interval: 45_000 } });
  }

  private onFrame(ws: WebSocket, text: string): void {
    const payload = JSON.parse(text) as { op: number; d: unknown };
    this.frames.push({ direction: 'in', payload });
    if (payload.op === 1) this.send(ws, { op: 11, s: null, t: null, d: null });
    if (payload.op === 2) this.identify(ws);
  }

  private identify(ws: WebSocket): void {
    const id = this.identity();
    this.seq += 1;
    this.send(ws, {
      op: 0,
      t: 'READY',
      s: this.seq,
      d: {
        v: 10,
        user: id.user,
        guilds: id.guilds.map((g) => ({ id: g.id, unavailable: true })),
        session_id: 'fake-session',
        resume_gateway_url: id.resumeUrl,
        application: { id: id.applicationId, flags: 0 },
        private_channels: [],
        relationships: [],
        user_settings: {},
        _trace: ['fake-discord'],
      },
    });
    for (const g of id.guilds) {
      this.seq += 1;
      this.send(ws, { op: 0, t: 'GUILD_CREATE', s: this.seq, d: g });
    }
    this.identified = true;
    for (const resolve of this.readyWaiters.splice(0)) resolve();
  }
}
