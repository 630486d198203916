import { describe, expect, it } from 'vitest';
import {
  asTextProtocol,
  callsFromText,
  codeBlocksOf,
  roundResultsMessage,
} from '../../../src/interpreter/text-protocol.js';
import { toolCallsInText } from '../../../src/interpreter/text-tool-calls.js';
import type { LlmMessage } from '../../../src/ports/llm-client.js';

const ALL = ['python', 'bash', 'r', 'javascript'] as const;

describe('tool calls written as text', () => {
  const args = { language: 'python', code: 'print(1)' };
  it.each([
    ['Hermes / Qwen', `<tool_call>\n${JSON.stringify({ name: 'run_code', arguments: args })}\n</tool_call>`],
    ['Llama python_tag', `<|python_tag|>${JSON.stringify({ name: 'run_code', parameters: args })}<|eom_id|>`],
    ['Mistral [TOOL_CALLS] list', `[TOOL_CALLS][${JSON.stringify({ name: 'run_code', arguments: args })}]`],
    ['Mistral [TOOL_CALLS] name[ARGS]', `[TOOL_CALLS]run_code[ARGS]${JSON.stringify(args)}`],
    ['<function=…>', `<function=run_code>${JSON.stringify(args)}</function>`],
    [
      'DeepSeek',
      `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>run_code\n\`\`\`json\n${JSON.stringify(args)}\n\`\`\`<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
    ],
    ['a bare JSON object', JSON.stringify({ name: 'run_code', arguments: args })],
  ])('%s', (_name, text) => {
    const found = toolCallsInText(`Let me run it.\n${text}`, ['run_code']);
    expect(found.calls).toHaveLength(text.startsWith('{') ? 0 : 1);
    const whole = toolCallsInText(text, ['run_code']);
    expect(whole.calls).toEqual([{ name: 'run_code', arguments: JSON.stringify(args) }]);
    expect(whole.rest).toBe('');
  });

  it('JSON that is data, not a call of ours, is left as text', () => {
    const text = '{"name": "Alice", "arguments": 3}';
    expect(toolCallsInText(text, ['run_code'])).toEqual({ calls: [], rest: text });
  });
});

describe('fenced blocks that run', () => {
  it('runs blocks tagged with a language the sandbox has; shows untagged, text and output blocks', () => {
    const text = [
      '```python',
      'x = 1',
      '```',
      '```',
      'plain',
      '```',
      '```text',
      'shown',
      '```',
      '```bash',
      'ls',
      '```',
      '```ruby',
      'puts 1',
      '```',
    ].join('\n');
    expect(codeBlocksOf(text, ['python', 'bash'])).toEqual({
      blocks: [
        { language: 'python', code: 'x = 1' },
        { language: 'bash', code: 'ls' },
      ],
      other: ['ruby'],
    });
    expect(codeBlocksOf('```r\nplot(1)\n```', ['python', 'bash']).other).toEqual(['r']);
  });

  it('gives every call a nine-character id (Mistral refuses others) and keeps the prose', () => {
    const found = callsFromText('Compute:\n```py\nprint(2)\n```\n```js\nconsole.log(3)\n```', {
      round: 3,
      languages: ALL,
    });
    expect(found.calls.map((c) => c.id)).toEqual(['tl0030000', 'tl0030001']);
    expect(found.calls.every((c) => /^[a-zA-Z0-9]{9}$/.test(c.id))).toBe(true);
    expect(JSON.parse(found.calls[1]!.arguments)).toEqual({ language: 'javascript', code: 'console.log(3)' });
    expect(found.written).toBe(0);
  });
});

describe('text-protocol messages', () => {
  it('a round’s results go back as one user message with the charts', () => {
    const calls = callsFromText('```python\nprint(1)\n```\n```bash\nfalse\n```', { round: 1, languages: ALL }).calls;
    const written: LlmMessage[] = [
      { role: 'tool', toolCallId: calls[0]!.id, content: 'status: ok\nstdout:\n1' },
      { role: 'tool', toolCallId: calls[1]!.id, content: 'status: error' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'charts' },
          { type: 'image', mime: 'image/png', base64: 'AAAA' },
        ],
      },
    ];
    const message = roundResultsMessage(calls, written, ['ruby']);
    expect(message.role).toBe('user');
    const parts = message.content as Array<{ type: string; text?: string }>;
    expect(parts[0]!.text).toContain('Block 1 (python):\nstatus: ok\nstdout:\n1');
    expect(parts[0]!.text).toContain('Block 2 (bash):\nstatus: error');
    expect(parts[0]!.text).toContain('Not run: blocks tagged ruby');
    expect(parts[1]).toMatchObject({ type: 'image' });
  });

  it('a turn that switched half-way: native calls become fenced blocks, tool results user messages', () => {
    const messages: LlmMessage[] = [
      { role: 'system', content: 'You are Threadlab.' },
      { role: 'user', content: 'mean?' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c1', name: 'run_code', arguments: '{"language":"python","code":"print(2)"}' }],
      },
      { role: 'tool', toolCallId: 'c1', content: 'stdout:\n2' },
    ];
    const text = asTextProtocol(messages, ['python', 'bash']);
    expect(text.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(text[0]!.content).toContain('write the code in a fenced block tagged with its language');
    expect(text[2]).toEqual({ role: 'assistant', content: '```python\nprint(2)\n```' });
    expect(text[3]!.content).toContain('stdout:\n2');
  });
});

describe("LM Studio's default tool format", () => {
  it('reads [TOOL_REQUEST] calls with or without the end marker, braces inside strings included', () => {
    const args = { language: 'python', code: 'print({"a": "}"})' };
    const call = JSON.stringify({ name: 'run_code', arguments: args });
    expect(toolCallsInText(`Running.\n[TOOL_REQUEST]${call}[END_TOOL_REQUEST]\nDone?`, ['run_code'])).toEqual({
      calls: [{ name: 'run_code', arguments: JSON.stringify(args) }],
      rest: 'Running.\n\nDone?',
    });
    expect(toolCallsInText(`[TOOL_REQUEST]${call}`, ['run_code']).calls).toHaveLength(1);
    // Without its last brace (how LM Studio leaves a call it could not parse): closed and read.
    expect(
      toolCallsInText('[TOOL_REQUEST]{"name": "run_code", "arguments": {"code": "x"}', ['run_code']).calls,
    ).toEqual([{ name: 'run_code', arguments: '{"code":"x"}' }]);
    expect(toolCallsInText('[TOOL_REQUEST]{"name": "run_code", "arguments": {"code": "x', ['run_code']).calls).toEqual(
      [],
    );
  });
});
