import type { ServerResponse } from 'node:http';
import {
  sseData,
  type DialectRequest,
  type DraftReply,
  type ReplyStyle,
  type StreamStyle,
  type Usage,
} from './dialect.js';

let idSeq = 0;

/** OpenAI's stream; dialects override parts of it with `streamStyle({...})`. */
export function streamStyle(overrides: Partial<StreamStyle> = {}): StreamStyle {
  return {
    preamble: [],
    firstDelta: { role: 'assistant', content: '' },
    toolCalls: 'pieces',
    usage: 'on-request',
    // OpenAI sends an error object as a data event once a stream has begun, then ends it.
    midStreamError: (_envelope, message) => sseData({ error: { message, type: 'server_error' } }),
    ...overrides,
  };
}

/** What FakeOpenAiServer always sent: the OpenAI shape. Dialects override parts of it. */
export const OPENAI_STYLE: ReplyStyle = {
  completionId: () => `chatcmpl-${++idSeq}`,
  toolCallId: () => `call_${++idSeq}`,
  reasoning: 'omit',
  refusalField: true,
  omitNullContent: false,
  logprobsField: true,
  envelope: () => ({}),
  stream: streamStyle(),
};

/** Everything a reply is written with. */
export interface WriteContext {
  request: DialectRequest;
  style: ReplyStyle;
  /** Characters per streamed content or arguments piece. */
  chunkChars: number;
  /** The server's `omitStreamUsage` option: no usage chunk whatever the style says. */
  omitStreamUsage: boolean;
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function withTotal(usage: Usage, style: ReplyStyle): Record<string, unknown> {
  return {
    ...usage,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    ...(style.usageExtra?.(usage) ?? {}),
  };
}

/** Moves the reasoning where the server puts it; returns the field name when it stays a field. */
function placeReasoning(draft: DraftReply, ctx: WriteContext): { draft: DraftReply; field?: string } {
  const placement = typeof ctx.style.reasoning === 'function' ? ctx.style.reasoning(ctx.request) : ctx.style.reasoning;
  if (!draft.reasoning || placement === 'omit') return { draft: { ...draft, reasoning: undefined } };
  if (placement === 'think-tags') {
    const content = `<think>\n${draft.reasoning}\n</think>\n\n${draft.content ?? ''}`;
    return { draft: { ...draft, content, reasoning: undefined } };
  }
  return { draft, field: placement };
}

function wireCalls(draft: DraftReply): Array<Record<string, unknown>> {
  return draft.toolCalls.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
    ...(call.extra ?? {}),
  }));
}

/** Writes a whole `chat.completion`. */
export function writeCompletion(res: ServerResponse, input: DraftReply, ctx: WriteContext): void {
  const { draft, field } = placeReasoning(input, ctx);
  const { style, request } = ctx;
  const calls = wireCalls(draft);
  const message: Record<string, unknown> = { role: 'assistant' };
  if (draft.content !== null || !style.omitNullContent) message.content = draft.content;
  if (field) message[field] = draft.reasoning;
  if (style.refusalField) message.refusal = draft.refusal ?? null;
  else if (draft.refusal) message.refusal = draft.refusal;
  if (calls.length > 0) message.tool_calls = calls;
  const choice = {
    index: 0,
    message,
    finish_reason: draft.finishReason,
    ...(style.logprobsField ? { logprobs: null } : {}),
    ...(style.choiceExtra ?? {}),
  };
  const completion = {
    id: style.completionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.body.model,
    ...style.envelope(request),
    choices: [choice],
    ...(style.completionExtra ?? {}),
    ...(draft.usage ? { usage: withTotal(draft.usage, style) } : {}),
  };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(completion));
}

/** Writes SSE chunks of one completion: the shape of each chunk, lead and trailing chunks, usage. */
class ChunkStream {
  readonly base: Record<string, unknown>;

  constructor(
    private readonly res: ServerResponse,
    private readonly ctx: WriteContext,
  ) {
    const { style, request } = ctx;
    this.base = {
      id: style.completionId(),
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: request.body.model,
      ...style.envelope(request),
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const line of style.stream.preamble) res.write(`${line}\n\n`);
    if (style.stream.leadChunk) res.write(sseData(style.stream.leadChunk(request)));
  }

  send(delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}): void {
    const { style } = this.ctx;
    const choice = {
      index: 0,
      delta,
      finish_reason: finishReason,
      ...(style.logprobsField ? { logprobs: null } : {}),
      ...(style.choiceExtra ?? {}),
    };
    this.res.write(sseData({ ...this.base, choices: [choice], ...extra }));
  }

  raw(text: string): void {
    this.res.write(text);
  }

  end(text?: string): void {
    this.res.end(text);
  }
}

/** Writes a completion as server-sent events ending with `[DONE]`. */
export function writeStream(res: ServerResponse, input: DraftReply, ctx: WriteContext): void {
  const { draft, field } = placeReasoning(input, ctx);
  const { style, request, chunkChars } = ctx;
  const out = new ChunkStream(res, ctx);
  out.send(style.stream.firstDelta);
  if (field) for (const text of pieces(draft.reasoning ?? '', chunkChars)) out.send({ [field]: text });
  for (const text of pieces(draft.content ?? '', chunkChars)) out.send({ content: text });
  if (draft.refusal) out.send({ refusal: draft.refusal });
  const calls = wireCalls(draft);
  if (style.stream.toolCalls === 'whole') {
    if (calls.length > 0) out.send({ tool_calls: calls.map((call, index) => ({ index, ...call })) });
  } else {
    calls.forEach((call, index) => {
      const { function: fn, ...rest } = call as { function: { name: string; arguments: string } };
      out.send({ tool_calls: [{ index, ...rest, function: { name: fn.name, arguments: '' } }] });
      for (const args of pieces(fn.arguments, chunkChars))
        out.send({ tool_calls: [{ index, function: { arguments: args } }] });
    });
  }
  const mode = ctx.omitStreamUsage ? 'never' : style.stream.usage;
  const usage = draft.usage ? withTotal(draft.usage, style) : null;
  out.send({}, draft.finishReason, {
    ...(mode === 'finish-chunk' && usage ? { usage } : {}),
    ...(style.stream.finishExtra?.(draft.usage) ?? {}),
  });
  for (const chunk of style.stream.trailingChunks?.(request) ?? []) out.raw(sseData({ ...out.base, ...chunk }));
  if (mode === 'on-request' && usage && request.body.stream_options?.include_usage) {
    out.raw(sseData({ ...out.base, choices: [], usage }));
  }
  out.end('data: [DONE]\n\n');
}

/** Writes a stream that begins with `content` and then breaks with the server's mid-stream error. */
export function writeBrokenStream(res: ServerResponse, content: string, message: string, ctx: WriteContext): void {
  const out = new ChunkStream(res, ctx);
  out.send(ctx.style.stream.firstDelta);
  for (const text of pieces(content, ctx.chunkChars)) out.send({ content: text });
  out.end(ctx.style.stream.midStreamError(out.base, message));
}
