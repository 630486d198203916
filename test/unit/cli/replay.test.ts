import { describe, expect, it } from 'vitest';
import { MAX_EXCHANGES, MAX_LINE_CHARS } from '../../../adapters/openai/recording-format.js';
import { parseRecording, type Recording } from '../../../cli/replay/read-recording.js';
import { comparedRecorded, comparedToday, firstDifference } from '../../../cli/replay/request-diff.js';
import { recordedQuestion } from '../../../cli/replay/replay-turn.js';

const header = {
  type: 'threadlab-llm-recording',
  version: 1,
  recordedAt: '2025-01-01T00:00:00.000Z',
  thread: 'cli:local:cli:t',
  job: 'j1',
  endpoint: 'http://127.0.0.1:9/v1',
  settings: {
    model: 'm',
    stream: true,
    tools: 'auto',
    images: true,
    maxRounds: 12,
    tokenBudget: 300000,
    maxRetries: 1,
    verifyFigures: 'ask',
    memoryTokens: 24000,
  },
  files: false,
};

const body = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: 'm',
  messages,
  tools: [{ type: 'function', function: { name: 'run_code', description: 'Runs code', parameters: {} } }],
  ...extra,
});

function request(seq: number, b: unknown) {
  return {
    type: 'request',
    seq,
    atMs: 0,
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: '[REDACTED]' },
    body: b,
  };
}
const response = (seq: number) => ({
  type: 'response',
  seq,
  durationMs: 1,
  status: 200,
  headers: {},
  body: '{}',
  end: 'complete',
});
const jsonl = (...lines: unknown[]) =>
  lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';

const question = [
  { role: 'system', content: 'You are Threadlab' },
  { role: 'user', content: 'What is 2+2?\n\n(Uploaded with this message: a.csv)' },
];

describe('parseRecording: everything read is untrusted', () => {
  it('reads a recording', () => {
    const r = parseRecording(jsonl(header, request(1, body(question)), response(1)), 'f') as Recording;
    expect(r.exchanges).toHaveLength(1);
    expect(r.exchanges[0]!.answer).toMatchObject({ status: 200 });
    expect(recordedQuestion(r)).toEqual({ text: 'What is 2+2?', earlierMessages: 0 });
  });

  it.each([
    ['an empty file', '', /f is empty, so it is not a Threadlab recording/],
    [
      'another JSONL file',
      jsonl({ hello: 1 }),
      /f is not a Threadlab recording: its first line is not a recording header/,
    ],
    ['text', 'hello\n', /not a Threadlab recording/],
    ['another version', jsonl({ ...header, version: 9 }), /version 9; this threadlab reads version 1/],
    [
      'a bad header',
      jsonl({ ...header, settings: { ...header.settings, maxRounds: 0 } }),
      /line 1 \(the header\): settings\.maxRounds/,
    ],
    ['no request', jsonl(header), /holds no model request/],
    ['a line that is not JSON', jsonl(header, '{nope'), /line 2: not JSON/],
    ['an unknown line', jsonl(header, { type: 'shell', cmd: 'rm' }), /line 2: type/],
    ['requests out of order', jsonl(header, request(2, {})), /request 2 where request 1 was due/],
    [
      'an answer to nothing',
      jsonl(header, request(1, {}), response(1), response(1)),
      /an answer to request 1, which has none pending/,
    ],
    [
      'a line after the truncation',
      jsonl(header, request(1, {}), { type: 'truncated', maxBytes: 1, message: 'cut' }, request(2, {})),
      /line 4: a line after the truncation line/,
    ],
  ])('refuses %s with a clear message', (_what, text, message) => {
    const r = parseRecording(text, 'f');
    expect('problem' in r && r.problem).toMatch(message);
  });

  it('refuses a line past the length limit and a file past the line limit', () => {
    const long = parseRecording(jsonl(header, 'x'.repeat(MAX_LINE_CHARS + 1)), 'f');
    expect('problem' in long && long.problem).toBe(`f, line 2: longer than ${MAX_LINE_CHARS} characters.`);
    const lines = Array.from({ length: 2 * MAX_EXCHANGES + 3 }, () => '{}').join('\n');
    const many = parseRecording(lines, 'f');
    expect('problem' in many && many.problem).toMatch(/has 4003 lines; a recording holds at most 2000 exchanges/);
  });

  it('says how many messages of earlier turns the recorded one had', () => {
    const messages = [
      question[0],
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: [{ type: 'text', text: 'now' }] },
    ];
    const r = parseRecording(jsonl(header, request(1, body(messages))), 'f') as Recording;
    expect(recordedQuestion(r)).toEqual({ text: 'now', earlierMessages: 2 });
  });
});

describe('firstDifference', () => {
  const today = (b: unknown, headers: Record<string, string> = { authorization: 'Bearer threadlab-replay-key' }) =>
    comparedToday(
      { method: 'POST', url: '/v1/chat/completions', headers: new Headers(headers), body: JSON.stringify(b) },
      false,
    );
  const recorded = (b: unknown) => comparedRecorded(request(1, b) as never);
  const tool = (ms: number, out: string) => ({
    role: 'tool',
    tool_call_id: 'c1',
    content: `status: ok (${ms} ms, run #1)\nstdout:\n${out}`,
  });

  it('is none when only a run duration differs', () => {
    expect(
      firstDifference([recorded(body([...question, tool(412, '4')]))], [today(body([...question, tool(97, '4')]))]),
    ).toBeUndefined();
  });

  it('names a changed message and where it parts, added and removed messages', () => {
    const d = firstDifference(
      [recorded(body([...question, tool(1, '4')]))],
      [today(body([...question, tool(1, '5'), { role: 'user', content: 'nudge' }]))],
    );
    expect(d?.index).toBe(0);
    expect(d?.lines[0]).toBe('messages: 3 recorded, 4 now');
    expect(d?.lines[1]).toMatch(/^ {2}~ \[2\] tool \(changed\) from character \d+: recorded ".*4", now ".*5"$/);
    expect(d?.lines[2]).toBe('  + [3] user (added): nudge');
    const removed = firstDifference([recorded(body(question))], [today(body(question.slice(0, 1)))]);
    expect(removed?.lines).toContain('  - [1] user (removed): What is 2+2? (Uploaded with this message: a.csv)');
  });

  it('names changed parameters, tools and the key header', () => {
    const d = firstDifference(
      [recorded(body(question, { temperature: 0.2, stream: true }))],
      [today({ ...body(question, { stream: true }), tools: [] }, { 'api-key': 'k' })],
    );
    expect(d?.lines).toEqual([
      'key sent in: recorded authorization, now api-key',
      'parameters:',
      '  temperature: recorded 0.2, now (absent)',
      'tools:',
      '  - run_code (removed)',
    ]);
  });

  it('finds the first differing request, and requests not sent or not recorded', () => {
    const a = recorded(body(question));
    expect(firstDifference([a, a], [today(body(question))])).toEqual({
      index: 1,
      lines: ['not sent today: the turn ended after 1 requests (recorded: POST /v1/chat/completions)'],
    });
    expect(firstDifference([a], [today(body(question)), today(body(question))])?.lines[0]).toMatch(
      /^not in the recording/,
    );
  });
});

describe('what replay does not count as a difference', () => {
  it('the sandbox image tag in the system prompt', () => {
    const prompt = (tag: string) => [
      { role: 'system', content: `Environment (read from sandbox image ${tag}):\n- Python 3.13` },
    ];
    const r = comparedRecorded(request(1, body(prompt('ed3c2f20c529'))) as never);
    const t = comparedToday(
      {
        method: 'POST',
        url: '/v1/chat/completions',
        headers: new Headers({ authorization: 'x' }),
        body: JSON.stringify(body(prompt('0123abcd'))),
      },
      false,
    );
    expect(firstDifference([r], [t])).toBeUndefined();
    const other = comparedToday(
      {
        method: 'POST',
        url: '/v1/chat/completions',
        headers: new Headers({ authorization: 'x' }),
        body: JSON.stringify(
          body([{ role: 'system', content: 'Environment (read from sandbox image 0123abcd):\n- Python 3.14' }]),
        ),
      },
      false,
    );
    expect(firstDifference([r], [other])?.lines[1]).toMatch(/~ \[0\] system \(changed\)/);
  });
});
