import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
      toolCalls?: FakeToolCall[];
      refusal?: string;
      finishReason?: string;
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
    }
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
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
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }>;
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
}

export interface FakeOpenAiServerOptions {
  steps?: FakeStep[];
  /** Used when the script is exhausted. @defaultValue a 500 error naming the problem */
  fallback?: FakeStep;
  /** Ignore `stream_options` and never send a usage chunk, like some local servers. @defaultValue false */
  omitStreamUsage?: boolean;
  /** Characters per streamed content or arguments chunk. @defaultValue 7 */
  chunkChars?: number;
}

let idSeq = 0;

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * A local OpenAI-compatible server on 127.0.0.1 for the real `openai` client: scripted replies,
 * stream:true as SSE chunks ending with [DONE], failures (429 with retry-after, 500, hangs), and a
 * record of every request body.
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

  /** Starts listening on a free port of 127.0.0.1 and returns the base URL (`…/v1`). */
  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.baseUrl;
  }

  get baseUrl(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('FakeOpenAiServer is not started');
    return `http://127.0.0.1:${address.port}/v1`;
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
    if (req.method !== 'POST' || !req.url?.split('?')[0]?.endsWith('/chat/completions')) {
      return this.json(res, 404, {
        error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' },
      });
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
    } catch {
      return this.json(res, 400, { error: { message: 'invalid JSON body', type: 'invalid_request_error' } });
    }
    const index = this.requests.length;
    this.requests.push({ body, headers: req.headers, url: req.url ?? '', atMs: Date.now() });
    const step = this.steps.shift() ??
      this.options.fallback ?? {
        kind: 'error',
        status: 500,
        body: { error: { message: `fake: no scripted reply for request #${index + 1}` } },
      };
    const reply = typeof step === 'function' ? step(body, index) : step;
    if (reply.kind === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (reply.kind === 'error') {
      return this.json(
        res,
        reply.status,
        reply.body ?? { error: { message: `fake error ${reply.status}`, type: 'server_error' } },
        reply.headers,
      );
    }
    const calls = (reply.toolCalls ?? []).map((c) => ({
      id: c.id ?? `call_${++idSeq}`,
      type: 'function' as const,
      function: { name: c.name, arguments: c.arguments },
    }));
    const finish = reply.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
    const usage = reply.usage === undefined ? { prompt_tokens: 50, completion_tokens: 10 } : reply.usage;
    const id = `chatcmpl-${++idSeq}`;
    const created = Math.floor(Date.now() / 1000);
    if (!body.stream) {
      const message = {
        role: 'assistant',
        content: reply.content ?? null,
        refusal: reply.refusal ?? null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      };
      return this.json(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
        ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const size = this.options.chunkChars ?? 7;
    const send = (
      delta: Record<string, unknown>,
      finishReason: string | null = null,
      extra: Record<string, unknown> = {},
    ): void => {
      const chunk = {
        id,
        object: 'chat.completion.chunk',
        created,
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
        ...extra,
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    send({ role: 'assistant', content: '' });
    for (const text of pieces(reply.content ?? '', size)) send({ content: text });
    if (reply.refusal) send({ refusal: reply.refusal });
    calls.forEach((call, index) => {
      send({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      });
      for (const args of pieces(call.function.arguments, size))
        send({ tool_calls: [{ index, function: { arguments: args } }] });
    });
    send({}, finish);
    if (usage && body.stream_options?.include_usage && !this.options.omitStreamUsage) {
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`,
      );
    }
    res.end('data: [DONE]\n\n');
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
}
