import { describe, expect, it } from 'vitest';
import { applyDialectOverride, describeDialect, initialDialect } from '../../../adapters/openai/dialect.js';
import { learn, lessonOf, refusesTools, type SentRequest } from '../../../adapters/openai/dialect-learning.js';

const sent = (fields: string[], more: Partial<SentRequest> = {}): SentRequest => ({
  fields: new Set(fields),
  userAfterTool: false,
  reasoningHeld: false,
  ...more,
});

describe('the dialect a server starts with', () => {
  it('sends the key in the api-key header for Azure URLs, as a Bearer token elsewhere', () => {
    expect(initialDialect('https://res.openai.azure.com/openai/deployments/gpt4o?api-version=2024-10-21').auth).toBe(
      'api-key',
    );
    expect(initialDialect('http://127.0.0.1:9/openai/deployments/gpt4o').auth).toBe('api-key');
    expect(initialDialect('http://127.0.0.1:11434/v1').auth).toBe('bearer');
  });

  it('THREADLAB_LLM_DIALECT sets what cannot be learned, and names an unknown word', () => {
    const d = applyDialectOverride(
      initialDialect('http://127.0.0.1/v1'),
      'auth=api-key, no-temperature,max-completion-tokens',
    );
    expect(describeDialect(d)).toEqual([
      'key in the api-key header (Azure)',
      'no temperature',
      'max_completion_tokens',
    ]);
    expect(() => applyDialectOverride(initialDialect('http://127.0.0.1/v1'), 'no-tempreature')).toThrow(
      /THREADLAB_LLM_DIALECT: unknown word "no-tempreature"/,
    );
  });
});

describe('lessons from refusals', () => {
  const fresh = () => initialDialect('http://127.0.0.1/v1');

  it('OpenAI reasoning models: temperature is left out, max_tokens becomes max_completion_tokens', () => {
    const d = fresh();
    const temp = {
      message:
        "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
      param: 'temperature',
      code: 'unsupported_value',
    };
    const lesson = lessonOf(400, temp, sent(['model', 'messages', 'temperature']), d);
    expect(lesson).toEqual({ kind: 'omit', field: 'temperature' });
    learn(d, lesson!);
    expect(lessonOf(400, temp, sent(['model', 'messages']), d)).toBeUndefined();
    const max = {
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      param: 'max_tokens',
    };
    expect(lessonOf(400, max, sent(['max_tokens']), d)).toEqual({ kind: 'max-completion-tokens' });
  });

  it('Azure: stream_options refused by an older api-version; a Bearer key refused with 401', () => {
    const d = fresh();
    expect(
      lessonOf(400, { message: 'Unrecognized request argument supplied: stream_options' }, sent(['stream_options']), d),
    ).toEqual({ kind: 'omit', field: 'stream_options' });
    const denied = {
      message:
        'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
      code: '401',
    };
    expect(lessonOf(401, denied, sent([]), d)).toEqual({ kind: 'api-key' });
    learn(d, { kind: 'api-key' });
    expect(lessonOf(401, denied, sent([]), d)).toBeUndefined();
  });

  it("Mistral's message order and DeepSeek's thinking are learned only when the request had them", () => {
    const d = fresh();
    const order = { message: "Unexpected role 'user' after role 'tool'" };
    expect(lessonOf(400, order, sent([]), d)).toBeUndefined();
    expect(lessonOf(400, order, sent([], { userAfterTool: true }), d)).toEqual({ kind: 'no-user-after-tool' });
    const back = {
      message:
        'Missing `reasoning_content` field in the assistant message at message index 2. For more information, please refer to the thinking mode documentation.',
    };
    expect(lessonOf(400, back, sent([], { reasoningHeld: true }), d)).toEqual({ kind: 'reasoning-back' });
  });

  it('old llama-server builds: tools are sent without streaming after its 500', () => {
    const d = fresh();
    const refused = { message: 'Cannot use tools with stream' };
    expect(lessonOf(500, refused, sent(['tools', 'stream']), d)).toEqual({ kind: 'no-stream-with-tools' });
    learn(d, { kind: 'no-stream-with-tools' });
    expect(lessonOf(500, refused, sent(['tools', 'stream']), d)).toBeUndefined();
    expect(describeDialect(d)).toContain('requests with tools not streamed');
  });

  it('nothing to learn from a refusal that names nothing the request can change', () => {
    expect(lessonOf(400, { message: 'This model does not exist' }, sent(['temperature']), fresh())).toBeUndefined();
    expect(lessonOf(500, { message: 'temperature unsupported' }, sent(['temperature']), fresh())).toBeUndefined();
  });

  it('servers that refuse tools, in their own words', () => {
    expect(refusesTools({ message: 'registry.ollama.ai/library/gemma3:4b does not support tools' })).toBe(true);
    expect(
      refusesTools({
        message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      }),
    ).toBe(true);
    expect(refusesTools({ message: 'tools param requires --jinja flag' })).toBe(true);
    expect(refusesTools({ message: "Unsupported value: 'temperature'" })).toBe(false);
  });
});
