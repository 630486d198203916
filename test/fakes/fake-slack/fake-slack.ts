import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BOT_ID, BOT_USER_ID, TEAM_ID } from './payloads.js';
import { FakeSocketMode } from './socket-mode.js';
import { postInteraction } from './signing.js';
import { FakeSlackState, type FakeSlackCall, type FakeSlackFile, type ScriptedFailure } from './state.js';
import { describeFile, handleMethod, type FakeIdentity } from './web-api.js';

export interface FakeSlackOptions {
  botToken?: string;
  appToken?: string;
}

const JSON_ARGS = new Set(['blocks', 'files', 'attachments', 'chunks', 'metadata', 'prompts', 'loading_messages']);
const LOGIN_PAGE = '<!DOCTYPE html><html><head><title>Slack</title></head><body>Sign in to Slack</body></html>';

/**
 * A local Slack on 127.0.0.1 for the real bolt and web-api clients: the Web API under `/api/`, file
 * downloads and upload URLs, a response_url sink and a Socket Mode WebSocket. Records every call.
 */
export class FakeSlack {
  readonly state = new FakeSlackState();
  readonly socket = new FakeSocketMode();
  readonly botToken: string;
  readonly appToken: string;
  private readonly server: Server;
  private baseUrlValue = '';

  constructor(options: FakeSlackOptions = {}) {
    this.botToken = options.botToken ?? 'xoxb-fake-bot-token-0001';
    this.appToken = options.appToken ?? 'xapp-1-fake-app-token-0001';
    this.server = createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    });
    this.server.on('upgrade', (req, socket, head) => {
      if (req.url?.startsWith('/socket')) this.socket.handleUpgrade(req, socket, head);
      else socket.destroy();
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrlValue = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await this.socket.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  get baseUrl(): string {
    return this.baseUrlValue;
  }

  /** The value for `slackApiUrl` / SLACK_API_URL. */
  get apiUrl(): string {
    return `${this.baseUrlValue}/api/`;
  }

  /** A fresh response_url that records what is posted to it. */
  responseUrl(id = `r${Date.now()}`): string {
    return `${this.baseUrlValue}/response/${id}`;
  }

  get calls(): FakeSlackCall[] {
    return this.state.calls;
  }

  callsTo(method: string): FakeSlackCall[] {
    return this.state.calls.filter((c) => c.method === method);
  }

  /** Makes the next `times` calls of `method` fail: a 429 with Retry-After, or `{ok:false, error}`. */
  failNext(method: string, failure: ScriptedFailure, times = 1): void {
    const queue = this.state.failures.get(method) ?? [];
    for (let i = 0; i < times; i += 1) queue.push(failure);
    this.state.failures.set(method, queue);
  }

  /**
   * Makes this workspace lack `method` for good, as one without the feature or scope does:
   * `unknown_method`, or `missing_scope` (with `needed` and `provided`, as Slack answers).
   */
  withoutMethod(method: string, error: 'unknown_method' | 'missing_scope' | 'not_allowed' = 'unknown_method'): void {
    this.state.unsupported.set(method, { error, ...(error === 'missing_scope' ? { needed: 'assistant:write' } : {}) });
  }

  /**
   * What Slack does when the user presses the native Stop of an app's stream in a thread: every stream
   * of the thread still streaming is ended (later appends answer `message_not_in_streaming_state`);
   * returns their ts, for the `agent_session_stopped` event's `streaming_message_ts`.
   */
  stopStreamsIn(channel: string, threadTs: string): string[] {
    const stopped = this.state.streams.filter((s) => s.channel === channel && s.threadTs === threadTs && s.streaming);
    for (const s of stopped) s.streaming = false;
    return stopped.map((s) => s.ts);
  }

  /**
   * Delivers an interactivity payload (a shortcut, a button press) as Slack does: an `interactive` envelope over
   * Socket Mode (resolving with the client's ack), or, given the app's request URL, a signed form-encoded POST
   * with the JSON in `payload` (resolving with the HTTP answer).
   */
  async interact(
    payload: Record<string, unknown>,
    http?: { url: string; signingSecret: string },
  ): Promise<{ ackMs: number; status?: number }> {
    const started = Date.now();
    if (!http) {
      await this.socket.send('interactive', payload);
      return { ackMs: Date.now() - started };
    }
    const res = await postInteraction(http.url, payload, { signingSecret: http.signingSecret });
    return { ackMs: Date.now() - started, status: res.status };
  }

  /** Hosts a user's file; returns the Slack file object to put in an event. */
  addFile(file: FakeSlackFile): Record<string, unknown> {
    this.state.files.set(file.id, file);
    return describeFile(this.baseUrlValue, file);
  }

  /** Polls until `predicate` holds; fails after `timeoutMs`. */
  async waitFor<T>(
    predicate: () => T | undefined | false,
    options: { timeoutMs?: number; what?: string } = {},
  ): Promise<T> {
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      const value = predicate();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private identity(): FakeIdentity {
    return {
      botToken: this.botToken,
      appToken: this.appToken,
      teamId: TEAM_ID,
      botUserId: BOT_USER_ID,
      botId: BOT_ID,
      baseUrl: this.baseUrlValue,
    };
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrlValue);
    const body = await readBody(req);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (req.method === 'POST' && url.pathname.startsWith('/api/'))
      return this.api(url.pathname.slice(5), req, body, token, res);
    if (req.method === 'POST' && url.pathname.startsWith('/upload/'))
      return this.upload(url.pathname.slice(8), req, body, res);
    if (req.method === 'POST' && url.pathname.startsWith('/response/')) {
      this.state.responses.push({ id: url.pathname.slice(10), body: JSON.parse(body.toString('utf8') || '{}') });
      return send(res, 200, 'text/plain', 'ok');
    }
    if (req.method === 'GET' && url.pathname.startsWith('/files/')) {
      const fileId = url.pathname.split('/')[2] ?? '';
      const file = this.state.files.get(fileId);
      const servedBytes = Boolean(file) && token === this.botToken && !file?.serveLoginPage;
      this.state.downloads.push({ fileId, servedBytes, atMs: Date.now() });
      if (!file) return send(res, 404, 'text/plain', 'not found');
      if (!servedBytes) return send(res, 200, 'text/html; charset=utf-8', LOGIN_PAGE);
      return send(res, 200, file.mimetype, file.data);
    }
    send(res, 404, 'text/plain', 'not found');
  }

  private async api(
    method: string,
    req: IncomingMessage,
    raw: Buffer,
    token: string | undefined,
    res: ServerResponse,
  ): Promise<void> {
    const args = parseArgs(req.headers['content-type'] ?? '', raw);
    const bodyToken = typeof args.token === 'string' ? args.token : undefined;
    const call: FakeSlackCall = { method, args, token: token ?? bodyToken, status: 200, atMs: Date.now() };
    this.state.calls.push(call);
    const failure = this.state.takeFailure(method, args);
    if (failure?.status === 429) {
      call.status = 429;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(failure.retryAfterSec) });
      res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      return;
    }
    if (failure?.delayMs) await new Promise((r) => setTimeout(r, failure.delayMs));
    const result = failure
      ? { ok: false, error: failure.error }
      : handleMethod(this.state, this.identity(), method, args, call.token);
    send(res, 200, 'application/json; charset=utf-8', JSON.stringify(result));
  }

  private async upload(fileId: string, req: IncomingMessage, raw: Buffer, res: ServerResponse): Promise<void> {
    const upload = this.state.uploads.find((u) => u.fileId === fileId);
    if (!upload) return send(res, 404, 'text/plain', 'unknown upload');
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('multipart/form-data')) {
      const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
      let part: File | undefined;
      form.forEach((v) => {
        if (!part && typeof v !== 'string') part = v;
      });
      upload.bytes = part ? Buffer.from(await part.arrayBuffer()) : Buffer.alloc(0);
    } else {
      upload.bytes = raw;
    }
    send(res, 200, 'text/plain', `OK - ${upload.bytes.length}`);
  }
}

function parseArgs(contentType: string, raw: Buffer): Record<string, unknown> {
  const text = raw.toString('utf8');
  if (contentType.includes('application/json')) return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    args[key] = JSON_ARGS.has(key) ? safeJson(value) : value;
  }
  return args;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
