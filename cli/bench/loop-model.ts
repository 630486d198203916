import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The bench's model server: an OpenAI-compatible Chat Completions endpoint on 127.0.0.1 that plays a model stuck
 * in a loop, as small local models are reported to get (the identical failing code sent back round after round):
 * every request with tools is answered with the same run_code call, whose code fails with a KeyError on a column
 * that does not exist; a request without tools gets a short answer. It sends no usage, so the loop's own
 * estimate counts the tokens, the same way for both sides of the bench.
 */
export const LOOPING_CODE = [
  'import pandas as pd',
  "df = pd.DataFrame({'region': ['north', 'south'], 'sales': [120, 80]})",
  "print(df['revenue'].sum())",
].join('\n');

/** Largest request body read, in bytes: the bench's own requests stay far below it. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

async function body(req: IncomingMessage): Promise<{ tools?: unknown[] }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { tools?: unknown[] };
}

/** A started looping model: its base URL, how many requests it answered, and `stop`. */
export interface LoopingModel {
  baseUrl: string;
  requests: () => number;
  stop: () => Promise<void>;
}

export async function startLoopingModel(options: { delayMs: number }): Promise<LoopingModel> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      // What a server without the route says: the client's probes (its context window) learn nothing here.
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    void (async () => {
      const request = await body(req);
      requests += 1;
      if (options.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      const message = request.tools?.length
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `call_${requests}`,
                type: 'function',
                function: { name: 'run_code', arguments: JSON.stringify({ language: 'python', code: LOOPING_CODE }) },
              },
            ],
          }
        : { role: 'assistant', content: 'The data has no revenue column.' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `bench-${requests}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: 'looping-model',
          choices: [{ index: 0, message, finish_reason: request.tools?.length ? 'tool_calls' : 'stop' }],
        }),
      );
    })().catch((err: unknown) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
