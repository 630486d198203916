import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DialectRequest, DraftReply, Refusal, RouteRequest, ServerDialect } from './model-servers/dialect.js';
import { OPENAI_STYLE, writeBrokenStream, writeCompletion, writeStream } from './model-servers/reply-writer.js';

/** A scripted tool call as the API returns it; `arguments` is raw text and may be malformed. */
export interface FakeToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/** One scripted reply of POST /v1/chat/completions. */
export type FakeReply =
  | {
      kind: 'message';
      content?: string | null;
      /** What the model thought; sent only by a dialect that returns reasoning, where that server puts it. */
      reasoning?: string;
      toolCalls?: FakeToolCall[];
      refusal?: string;
      finishReason?: string;
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
    }
  /** `body` is sent as is; without one, `message` in the error shape of the dialect (or OpenAI's). */
  | { kind: 'error'; status: number; body?: unknown; message?: string; headers?: Record<string, string> }
  /** A stream that starts (status 200, `content` so far) and then fails the way the server fails a stream midway. */
  | { kind: 'broken-stream'; content?: string; message: string }
  /** Accept the request and never answer (for timeouts and cancellation). */
  | { kind: 'hang' };

/** A scripted model turn that calls run_code with Python `code`. */
export function fakeRunCode(code: string): FakeReply {
  return {
    kind: 'message',
    toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ language: 'python', code }) }],
  };
}

/** A scripted final answer. */
export function fakeSay(content: string): FakeReply {
  return { kind: 'message', content };
}

/** Python that charts /mnt/data/sales.csv (month, revenue) and prints the revenue total. */
export const SALES_CHART_CODE = [
  'import pandas as pd, matplotlib',
  'matplotlib.use("Agg")',
  'import matplotlib.pyplot as plt',
  'df = pd.read_csv("/mnt/data/sales.csv")',
  'fig, ax = plt.subplots()',
  'ax.plot(df["month"], df["revenue"])',
  'ax.set_title("Revenue by month")',
  'plt.show()',
  'print(df["revenue"].sum())',
].join('\n');

export type FakeStep = FakeReply | ((body: ChatRequestBody, index: number) => FakeReply);

/** The parts of a request body tests look at; the whole parsed body is kept. */
export interface ChatRequestBody {
  model: string;
  messages: Array<{
    role: string;
    content?: unknown;
    tool_calls?: unknown[];
    tool_call_id?: string;
    [key: string]: unknown;
  }>;
  tools?: Array<{ type: string; function: { name: string } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

export interface RecordedChatRequest {
  body: ChatRequestBody;
  headers: Record<string, string | string[] | undefined>;
  /** The request's path and query, as received. */
  url: string;
  /** Epoch ms when it arrived, to measure retry delays. */
  atMs: number;
  /** Set when the dialect refused the request (the scripted step was then kept for the next one). */
  refusal?: Refusal;
  /** What the model saw, when the dialect changed it (Ollama's silent truncation from the front). */
  seen?: ChatRequestBody;
}

export interface FakeOpenAiServerOptions {
  steps?: FakeStep[];
  /** Used when the script is exhausted. @defaultValue a 500 error naming the problem */
  fallback?: FakeStep;
  /** Ignore `stream_options` and never send a usage chunk, like some local servers. @defaultValue false */
  omitStreamUsage?: boolean;
  /** Characters per streamed content or arguments chunk. @defaultValue 7 */
  chunkChars?: number;
  /**
   * Behave like one real server (test/fakes/model-servers/): its base path, refusals and error bodies, reply shape
   * and stream quirks. @defaultValue OpenAI's API under `/v1`, accepting everything
   */
  dialect?: ServerDialect;
}

/**
 * A local OpenAI-compatible server on 127.0.0.1 for the real `openai` client: scripted replies,
 * stream:true as SSE chunks ending with [DONE], failures (429 with retry-after, 500, hangs), and a
 * record of every request body. With a `dialect` it plays one real server instead of OpenAI.
 */
export class FakeOpenAiServer {
  readonly requests: RecordedChatRequest[] = [];
  private readonly steps: FakeStep[];
  private server: Server | undefined;
  private readonly hanging = new Set<ServerResponse>();

  constructor(private readonly options: FakeOpenAiServerOptions = {}) {
    this.steps = [...(options.steps ?? [])];
  }

  /** Queues more replies. */
  push(...steps: FakeStep[]): void {
    this.steps.push(...steps);
  }

  get remaining(): number {
    return this.steps.length;
  }

  /** Drops the replies queued and not asked for: a test that failed before its turn asked leaves them behind. */
  discardQueued(): void {
    this.steps.length = 0;
  }

  /** Starts listening on a free port of 127.0.0.1 and returns the base URL (`…/v1`, or the dialect's base path). */
  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.baseUrl;
  }

  get baseUrl(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('FakeOpenAiServer is not started');
    return `http://127.0.0.1:${address.port}${this.options.dialect?.basePath ?? '/v1'}`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { dialect } = this.options;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route: RouteRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
    };
    const errorBody = (status: number, message: string, type: string): unknown =>
      dialect ? dialect.errorBody(status, message) : { error: { message, type } };
    const routed = dialect
      ? route.method === 'POST' && route.path === `${dialect.basePath}/chat/completions`
      : req.method === 'POST' && req.url?.split('?')[0]?.endsWith('/chat/completions');
    if (!routed) {
      const answered = this.routeAnswer(route, Buffer.concat(chunks).toString('utf8'));
      if (answered) return this.send(res, answered);
      if (dialect?.notFound) return this.send(res, dialect.notFound(route));
      return this.json(res, 404, errorBody(404, `no route ${req.method} ${req.url}`, 'invalid_request_error'));
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
    } catch {
      return this.json(res, 400, errorBody(400, 'invalid JSON body', 'invalid_request_error'));
    }
    const index = this.requests.length;
    const recorded: RecordedChatRequest = { body, headers: req.headers, url: req.url ?? '', atMs: Date.now() };
    this.requests.push(recorded);
    const sent: DialectRequest = { ...route, body };
    for (const check of dialect?.checks ?? []) {
      const refusal = check(sent);
      if (!refusal) continue;
      recorded.refusal = refusal;
      return this.send(res, refusal);
    }
    const seen = dialect?.prompt?.(sent);
    if (seen && seen !== body) recorded.seen = seen;
    const request: DialectRequest = seen ? { ...sent, body: seen } : sent;
    const exhausted = `fake: no scripted reply for request #${index + 1}`;
    const step: FakeStep =
      this.steps.shift() ??
      this.options.fallback ??
      (dialect
        ? { kind: 'error', status: 500, message: exhausted }
        : { kind: 'error', status: 500, body: { error: { message: exhausted } } });
    this.answer(res, typeof step === 'function' ? step(request.body, index) : step, request);
  }

  /** The dialect's answer for another path (its model list, props…), given the raw body. */
  private routeAnswer(route: RouteRequest, text: string): Refusal | undefined {
    let body: unknown;
    try {
      body = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      body = undefined;
    }
    for (const answer of this.options.dialect?.routes ?? []) {
      const answered = answer({ ...route, body });
      if (answered) return answered;
    }
    return undefined;
  }

  /** Sends one scripted reply, shaped by the dialect. */
  private answer(res: ServerResponse, reply: FakeReply, request: DialectRequest): void {
    const { dialect } = this.options;
    if (reply.kind === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (reply.kind === 'error') {
      const message = reply.message ?? `fake error ${reply.status}`;
      const fallback = dialect
        ? dialect.errorBody(reply.status, message)
        : { error: { message, type: 'server_error' } };
      return this.json(res, reply.status, reply.body ?? fallback, reply.headers);
    }
    const style = { ...OPENAI_STYLE, ...dialect?.style };
    const ctx = {
      request,
      style,
      chunkChars: this.options.chunkChars ?? 7,
      omitStreamUsage: this.options.omitStreamUsage ?? false,
    };
    if (reply.kind === 'broken-stream') return writeBrokenStream(res, reply.content ?? '', reply.message, ctx);
    const calls = reply.toolCalls ?? [];
    const draft: DraftReply = {
      content: reply.content ?? null,
      ...(reply.reasoning !== undefined ? { reasoning: reply.reasoning } : {}),
      ...(reply.refusal !== undefined ? { refusal: reply.refusal } : {}),
      toolCalls: calls.map((c) => ({ id: c.id ?? style.toolCallId(), name: c.name, arguments: c.arguments })),
      finishReason: reply.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
      usage: reply.usage === undefined ? { prompt_tokens: 50, completion_tokens: 10 } : reply.usage,
    };
    const shaped = dialect?.shapeReply ? dialect.shapeReply(draft, request) : draft;
    if ('kind' in shaped) {
      if (!request.body.stream) return this.send(res, shaped.failure);
      // The generation failed after the 200 and the SSE headers had gone out.
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      return void res.end(shaped.streamed);
    }
    if (request.body.stream) writeStream(res, shaped, ctx);
    else writeCompletion(res, shaped, ctx);
  }

  private send(res: ServerResponse, refusal: Refusal): void {
    this.json(res, refusal.status, refusal.body, refusal.headers);
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
}
