import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { mapOpenAiError } from '../../../adapters/openai/map-error.js';
import { toOpenAiMessages } from '../../../adapters/openai/map-messages.js';
import { StreamAssembler } from '../../../adapters/openai/stream-assembler.js';

function chunk(
  delta: ChatCompletionChunk.Choice.Delta,
  finish: ChatCompletionChunk.Choice['finish_reason'] = null,
): ChatCompletionChunk {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

const ctx = { model: 'gpt-x', baseUrl: 'http://127.0.0.1:1/v1', requestTimeoutMs: 1000, attempts: 3 };

describe('OpenAI adapter pieces', () => {
  it('assembles interleaved parallel tool calls by index', () => {
    const deltas: string[] = [];
    const a = new StreamAssembler((d) => deltas.push(d));
    a.push(chunk({ role: 'assistant', content: 'Running ' }));
    a.push(chunk({ content: 'both.' }));
    a.push(
      chunk({
        tool_calls: [
          { index: 0, id: 'A', type: 'function', function: { name: 'run_code', arguments: '{"language":' } },
        ],
      }),
    );
    a.push(
      chunk({
        tool_calls: [
          { index: 1, id: 'B', type: 'function', function: { name: 'run_code', arguments: '{"language":"bash",' } },
        ],
      }),
    );
    a.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '"python","code":"1"}' } }] }));
    a.push(chunk({ tool_calls: [{ index: 1, function: { arguments: '"code":"ls"}' } }] }));
    a.push(chunk({}, 'tool_calls'));
    a.push({ ...chunk({}), choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
    expect(a.result()).toEqual({
      content: 'Running both.',
      toolCalls: [
        { id: 'A', name: 'run_code', arguments: '{"language":"python","code":"1"}' },
        { id: 'B', name: 'run_code', arguments: '{"language":"bash","code":"ls"}' },
      ],
      finishReason: 'tool_calls',
      usage: { promptTokens: 11, completionTokens: 7 },
    });
    expect(deltas).toEqual(['Running ', 'both.']);
  });

  it('keeps a streamed refusal and reports zero usage when the server sends none', () => {
    const a = new StreamAssembler();
    a.push(chunk({ refusal: 'I can' }));
    a.push(chunk({ refusal: 'not.' }, 'stop'));
    expect(a.result()).toMatchObject({
      content: null,
      refusal: 'I cannot.',
      finishReason: 'stop',
      usage: { promptTokens: 0, completionTokens: 0 },
    });
  });

  it('maps images to data URLs, or to a note when images are off', () => {
    const messages = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'chart:' },
          { type: 'image' as const, mime: 'image/png', base64: 'AAAA' },
        ],
      },
    ];
    expect(toOpenAiMessages(messages, { images: true })[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'chart:' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
    });
    expect(JSON.stringify(toOpenAiMessages(messages, { images: false }))).not.toContain('image_url');
  });

  it('maps SDK errors to ThreadlabErrors with codes, retryability and hints', () => {
    const headers = new Headers({ 'retry-after': '7' });
    const limited = mapOpenAiError(
      OpenAI.APIError.generate(429, { error: { message: 'slow down' } }, undefined, headers),
      ctx,
    );
    expect(limited).toMatchObject({ code: 'llm_rate_limited', isRetryable: true, retryAfterMs: 7000 });
    expect(limited.message).toContain('(3 attempts)');
    const auth = mapOpenAiError(
      OpenAI.APIError.generate(401, { error: { message: 'bad key' } }, undefined, new Headers()),
      ctx,
    );
    expect(auth).toMatchObject({ code: 'llm_refused', isRetryable: false });
    expect(auth.message).toContain('"bad key"');
    expect(auth.message).toContain('OPENAI_API_KEY');
    const missing = mapOpenAiError(
      OpenAI.APIError.generate(404, { error: { message: 'no model' } }, undefined, new Headers()),
      ctx,
    );
    expect(missing.message).toContain('OPENAI_MODEL (gpt-x)');
    expect(mapOpenAiError(new OpenAI.APIConnectionTimeoutError(), ctx)).toMatchObject({
      code: 'llm_unreachable',
      isRetryable: true,
    });
    expect(mapOpenAiError(new OpenAI.APIUserAbortError(), ctx).code).toBe('cancelled');
    // llama-server without --jinja refuses tools with a 500: a refusal no retry helps, with the server flag.
    const jinja = mapOpenAiError(
      OpenAI.APIError.generate(
        500,
        { error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } },
        undefined,
        new Headers(),
      ),
      ctx,
    );
    expect(jinja).toMatchObject({ code: 'llm_tools_unsupported', isRetryable: false });
    expect(jinja.message).toContain('start llama-server with --jinja');
    const openrouter = mapOpenAiError(
      OpenAI.APIError.generate(
        404,
        { error: { code: 404, message: 'No endpoints found that support tool use.' } },
        undefined,
        new Headers(),
      ),
      ctx,
    );
    expect(openrouter.code).toBe('llm_tools_unsupported');
  });
});
