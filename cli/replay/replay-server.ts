import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_LINE_CHARS } from '../../adapters/openai/recording-format.js';
import type { RecordedExchange } from './read-recording.js';

/** A request as the replay server received it. */
export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: Headers;
  body: string;
}

/** Recorded response headers a client acts on; the rest (dates, ids, transport) are not sent again. */
const REPLAYED_HEADERS = /^(content-type|retry-after|retry-after-ms|x-should-retry|openai-.*|x-ratelimit-.*)$/i;

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_LINE_CHARS) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Whether a recorded request is a chat completion (the turn itself), not a probe of the server (`/models`, `/props`). */
export function isCompletion(request: { method: string; url: string }): boolean {
  return request.method.toUpperCase() === 'POST' && /\/chat\/completions$/.test(request.url.split('?')[0]!);
}

/**
 * A local OpenAI-compatible endpoint on 127.0.0.1 that answers the n-th chat completion it receives with the
 * recording's n-th, whatever was asked (what was asked is compared afterwards): the status, the headers a client
 * acts on, and the body as recorded, a stream as its events. A recorded network error closes the connection; a
 * completion past the recording's end gets a 500 that says so. Probes of the server (the context window's
 * `/models`, `/props`, `/api/show`) are made once per process, so a turn may or may not hold them: each is answered
 * from a recorded one of the same method and path when there is one, else with a 404, and is not compared. Every
 * completion received is kept, up to the recording's length and one more.
 */
export class ReplayServer {
  readonly received: ReceivedRequest[] = [];
  private readonly server: Server;
  private port = 0;
  private readonly exchanges: RecordedExchange[];
  private readonly probes: RecordedExchange[];

  constructor(recorded: RecordedExchange[]) {
    this.exchanges = recorded.filter((e) => isCompletion(e.request));
    this.probes = recorded.filter((e) => !isCompletion(e.request));
    this.server = createServer((req, res) => void this.answer(req, res));
  }

  /** The base URL of the endpoint. */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', resolve);
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req).catch(() => undefined);
    if (body === undefined) {
      res.destroy();
      return;
    }
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    if (!isCompletion({ method, url })) return this.answerProbe(method, url, res);
    const index = this.received.length;
    if (index <= this.exchanges.length) {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) headers.set(name, value.join(', '));
      this.received.push({ method, url, headers, body });
    }
    this.write(this.exchanges[index]?.answer, index, res);
  }

  private answerProbe(method: string, url: string, res: ServerResponse): void {
    const path = url.split('?')[0];
    const at = this.probes.findIndex((p) => p.request.method === method && p.request.url.split('?')[0] === path);
    const probe = at >= 0 ? this.probes.splice(at, 1)[0] : undefined;
    if (probe?.answer) return this.write(probe.answer, -1, res);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `threadlab replay: ${method} ${path} is not in the recording.` } }));
  }

  private write(answer: RecordedExchange['answer'], index: number, res: ServerResponse): void {
    if (!answer) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: `threadlab replay: the recording has no response for request ${index + 1} (it holds ${this.exchanges.filter((e) => e.answer).length}).`,
          },
        }),
      );
      return;
    }
    if (answer.type === 'network_error') {
      res.destroy();
      return;
    }
    const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => REPLAYED_HEADERS.test(name)));
    res.writeHead(answer.status, headers);
    if (answer.events) for (const event of answer.events) res.write(`${event}\n\n`);
    else if (answer.body) res.write(answer.body);
    // A stream that failed midway fails again the same way: the connection drops before its end.
    if (answer.end === 'failed') res.destroy();
    else res.end();
  }
}
