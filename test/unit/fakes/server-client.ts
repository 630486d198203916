import { afterEach } from 'vitest';
import { FakeOpenAiServer, type FakeStep } from '../../fakes/fake-openai-server.js';
import type { ServerDialect } from '../../fakes/model-servers/dialect.js';

/** The run_code tool as Threadlab offers it. */
export const RUN_CODE_TOOL = {
  type: 'function',
  function: {
    name: 'run_code',
    description: 'Run code',
    parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
  },
};

export const RUN_CODE_ARGS = JSON.stringify({ language: 'python', code: 'print(6*7)' });

const started: FakeOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
});

/** A started fake playing `dialect`, stopped after the test. */
export async function fake(dialect: ServerDialect | undefined, steps: FakeStep[] = []): Promise<FakeOpenAiServer> {
  const server = new FakeOpenAiServer({ ...(dialect ? { dialect } : {}), steps, chunkChars: 4 });
  started.push(server);
  await server.start();
  return server;
}

export interface Answer {
  status: number;
  text: string;
  /** The parsed body; undefined when it is not JSON. */
  json: unknown;
}

/** POSTs `body` to `${server.baseUrl}${path}` with plain fetch. */
export async function post(
  server: FakeOpenAiServer,
  body: unknown,
  options: { headers?: Record<string, string>; path?: string; query?: string } = {},
): Promise<Answer> {
  const url = `${server.baseUrl}${options.path ?? '/chat/completions'}${options.query ?? ''}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/** One server-sent event: a comment, or an event with its `data` parsed when it is JSON. */
export type SseEvent = { comment: string } | { event?: string; data: unknown; raw: string };

/** Splits an SSE body into its events. */
export function events(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block): SseEvent => {
      if (block.startsWith(':')) return { comment: block.slice(1).trim() };
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
      const raw = lines.find((line) => line.startsWith('data: '))?.slice(6) ?? '';
      let data: unknown = raw;
      try {
        data = JSON.parse(raw);
      } catch {
        // [DONE] stays text.
      }
      return { ...(event ? { event } : {}), data, raw };
    });
}

/** The JSON chunks of an SSE body, in order. */
export function chunks(text: string): Array<Record<string, unknown>> {
  return events(text).flatMap((e) =>
    'data' in e && typeof e.data === 'object' && e.data !== null ? [e.data as Record<string, unknown>] : [],
  );
}

interface Choice {
  delta?: Record<string, unknown>;
  finish_reason?: string | null;
  [key: string]: unknown;
}

/** The first choice of a chunk, if any. */
export function choiceOf(chunk: Record<string, unknown>): Choice | undefined {
  return (chunk.choices as Choice[] | undefined)?.[0];
}

/** Concatenates a string delta field (`content`, `reasoning`, `reasoning_content`) over a stream. */
export function joined(text: string, field: string): string {
  return chunks(text)
    .map((c) => choiceOf(c)?.delta?.[field])
    .filter((v): v is string => typeof v === 'string')
    .join('');
}

/** The `message` of a non-streamed completion. */
export function messageOf(answer: Answer): Record<string, unknown> {
  const body = answer.json as { choices: Array<{ message: Record<string, unknown> }> };
  return body.choices[0]!.message;
}

/** The user's question of every request here. */
export const QUESTION = { role: 'user', content: 'What is 6*7? Use code.' };

/** A user question offering run_code. */
export function ask(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, messages: [QUESTION], tools: [RUN_CODE_TOOL], ...extra };
}

/** The assistant turn that called run_code as `id`, its tool result, with `extra` fields on the assistant message. */
export function toolTurn(id: string, extra: Record<string, unknown> = {}, callExtra: Record<string, unknown> = {}) {
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'run_code', arguments: RUN_CODE_ARGS }, ...callExtra }],
      ...extra,
    },
    { role: 'tool', tool_call_id: id, content: '42' },
  ];
}
