import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { call, input, PNG_1PX, say, systemOf, toolMessagesOf, wire } from './helpers.js';

const TRACEBACK = 'Traceback (most recent call last):\n  File "<cell>", line 2, in <module>\nKeyError: \'revenue\'';

describe('interpreter loop through the real openai client', () => {
  let server: FakeOpenAiServer;
  beforeEach(async () => {
    server = new FakeOpenAiServer();
    await server.start();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('buggy code → traceback → fixed code → chart → an answer that refers to the chart (streamed)', async () => {
    server.push(
      call('import pandas as pd\ndf = pd.read_csv("sales.csv")\nprint(df["revenue"].sum())'),
      call('df = pd.read_csv("sales.csv")\nprint(df["Revenue"].sum())'),
      call('df.plot(x="month", y="Revenue", title="Revenue by month")'),
      say('Total revenue is 20.75. The chart "Revenue by month" shows March as the best month.'),
    );
    const sandbox = new FakeSandbox();
    sandbox.enqueue(
      { error: { name: 'KeyError', value: "'revenue'", traceback: TRACEBACK } },
      { stdout: '20.75\n' },
      {
        displays: [{ data: { 'image/png': PNG_1PX }, meta: { title: 'Revenue by month', xlabel: 'month' } }],
        writeFiles: { 'chart.png': 'x' },
      },
    );
    const { interpreter, onProgress, events } = wire(server, sandbox);
    const result = await interpreter.handle(input('total revenue and a chart by month'), { onProgress });

    expect(result.outcome).toBe('answer');
    expect(result.text).toContain('The chart "Revenue by month"');
    expect(result.runs.map((r) => r.result.status)).toEqual(['error', 'ok', 'ok']);
    expect(result.model).toBe('fake-gpt');
    expect(result.usage).toEqual({ promptTokens: 200, completionTokens: 40 });

    const bodies = server.requests.map((r) => r.body);
    expect(bodies).toHaveLength(4);
    expect(bodies[0]!.tools?.map((t) => t.function.name)).toEqual(['run_code']);
    expect(bodies[0]).toMatchObject({ model: 'fake-gpt', stream: true, stream_options: { include_usage: true } });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-e2e-test-key-000000');
    // The traceback went back under the id of the call that failed.
    const assistant1 = bodies[1]!.messages[2] as { tool_calls: Array<{ id: string; function: { arguments: string } }> };
    expect(JSON.parse(assistant1.tool_calls[0]!.function.arguments).code).toContain('df["revenue"]');
    const [bugResult] = toolMessagesOf(bodies[1]!);
    expect(bugResult!.tool_call_id).toBe(assistant1.tool_calls[0]!.id);
    expect(bugResult!.content).toContain("error: KeyError: 'revenue'");
    expect(bugResult!.content).toContain('File "<cell>", line 2');
    expect(toolMessagesOf(bodies[2]!)[1]!.content).toContain('stdout:\n20.75');
    // The chart: described in the tool result, then given as an image part.
    expect(toolMessagesOf(bodies[3]!)[2]!.content).toContain('image/png chart "Revenue by month" (x: month)');
    expect(toolMessagesOf(bodies[3]!)[2]!.content).toContain('/mnt/data/chart.png (created');
    const last = bodies[3]!.messages.at(-1) as {
      role: string;
      content: Array<{ type: string; image_url?: { url: string } }>;
    };
    expect(last.role).toBe('user');
    expect(last.content.find((p) => p.type === 'image_url')?.image_url?.url).toBe(`data:image/png;base64,${PNG_1PX}`);
    // Live progress: streamed text deltas add up to the answer.
    const deltas = events.flatMap((e) => (e.type === 'text' ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(result.text);
    expect(events.filter((e) => e.type === 'code')).toHaveLength(3);
  });

  it('answers about an uploaded spreadsheet from its preview', async () => {
    server.push(say('The workbook has two sheets; "Q1" has 120 rows with region and revenue.'));
    const sandbox = new FakeSandbox({
      preview: (path, data) => ({
        path,
        bytes: data.length,
        kind: 'table',
        tables: [
          {
            sheet: 'Q1',
            rows: 120,
            columns: [
              { name: 'region', dtype: 'object' },
              { name: 'revenue', dtype: 'float64' },
            ],
            head: 'region  revenue\nnorth   10.5\nsouth    7.2',
          },
          { sheet: 'Notes', rows: 3, columns: [{ name: 'note', dtype: 'object' }], head: 'note\nprovisional' },
        ],
      }),
    });
    const { interpreter } = wire(server, sandbox, { stream: false });
    const uploaded = await sandbox.putFile('cli:local:cli:e2e', 'sales.xlsx', Buffer.from('PK fake workbook'));
    const result = await interpreter.handle({ ...input('what is in this file?'), uploaded: [uploaded] }, {});
    expect(result.outcome).toBe('answer');
    const system = systemOf(server.requests[0]!.body);
    expect(system).toContain('/mnt/data/sales.xlsx');
    expect(system).toContain('[uploaded with this message]');
    expect(system).toContain('sheet "Q1": 120 rows; columns: region (object), revenue (float64)');
    expect(system).toContain('north   10.5');
    expect(system).toContain('sheet "Notes": 3 rows');
    expect(server.requests[0]!.body.stream).toBe(false);
    expect(String(server.requests[0]!.body.messages.at(-1)?.content)).toContain(
      '(Uploaded with this message: sales.xlsx)',
    );
  });

  it('assembles streamed tool calls and works with a server that never sends usage', async () => {
    await server.stop();
    server = new FakeOpenAiServer({ omitStreamUsage: true, chunkChars: 3 });
    await server.start();
    const code = 'import math\nprint(math.sqrt(2))  # a longer line so arguments span many chunks';
    server.push(
      {
        kind: 'message',
        content: 'Let me compute. ',
        toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ language: 'python', code }) }],
      },
      say('√2 ≈ 1.4142'),
    );
    const sandbox = new FakeSandbox({ handler: () => ({ stdout: '1.4142135623730951\n' }) });
    const { interpreter } = wire(server, sandbox);
    const result = await interpreter.handle(input('sqrt 2'), {});
    expect(result.outcome).toBe('answer');
    expect(sandbox.runs[0]!.request.code).toBe(code);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    const echoed = server.requests[1]!.body.messages[2] as { content: string; tool_calls: unknown[] };
    expect(echoed.content).toBe('Let me compute. ');
    expect(echoed.tool_calls).toHaveLength(1);
  });

  it('retries a 429 after its retry-after and succeeds', async () => {
    server.push(
      {
        kind: 'error',
        status: 429,
        headers: { 'retry-after': '1' },
        body: { error: { message: 'Rate limit reached', type: 'rate_limit_error' } },
      },
      say('hello'),
    );
    const { interpreter } = wire(server, new FakeSandbox());
    const result = await interpreter.handle(input('hi'), {});
    expect(result).toMatchObject({ outcome: 'answer', text: 'hello' });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.atMs - server.requests[0]!.atMs).toBeGreaterThanOrEqual(900);
  });

  it('reports failure after retries are exhausted instead of crashing', async () => {
    const boom = {
      kind: 'error' as const,
      status: 500,
      body: { error: { message: 'upstream exploded', type: 'server_error' } },
    };
    server.push(boom, boom);
    const { interpreter } = wire(server, new FakeSandbox(), { maxRetries: 1 });
    const result = await interpreter.handle(input('hi'), {});
    expect(result.outcome).toBe('failed');
    expect(result.text).toContain('500');
    expect(result.text).toContain('(2 attempts)');
    expect(server.requests).toHaveLength(2);
  });

  it('reports a request timeout and a 429 that outlasts the retries', async () => {
    server.push({ kind: 'hang' });
    const slow = wire(server, new FakeSandbox(), { requestTimeoutMs: 300, maxRetries: 0 });
    const timedOut = await slow.interpreter.handle(input('hi'), {});
    expect(timedOut.outcome).toBe('failed');
    expect(timedOut.text).toContain('THREADLAB_LLM_REQUEST_TIMEOUT_MS');

    server.push({ kind: 'error', status: 429, headers: { 'retry-after': '0' } });
    const limited = await wire(server, new FakeSandbox(), { maxRetries: 0 }).interpreter.handle(input('hi'), {});
    expect(limited.outcome).toBe('failed');
    expect(limited.text).toContain('rate limiting');
  });

  it('sends malformed tool arguments back to the model, which corrects them', async () => {
    server.push(
      {
        kind: 'message',
        toolCalls: [{ id: 'call_bad', name: 'run_code', arguments: '{"language":"python","code":"print(\'hi\')' }],
      },
      call("print('hi')"),
      say('It printed hi.'),
    );
    const sandbox = new FakeSandbox({ handler: () => ({ stdout: 'hi\n' }) });
    const { interpreter } = wire(server, sandbox, { stream: false });
    const result = await interpreter.handle(input('say hi'), {});
    expect(result.outcome).toBe('answer');
    expect(sandbox.runs).toHaveLength(1);
    const [error] = toolMessagesOf(server.requests[1]!.body);
    expect(error).toMatchObject({ tool_call_id: 'call_bad' });
    expect(error!.content).toContain('not valid JSON');
    expect(error!.content).toContain('Nothing ran');
  });

  it('stops a model that never stops calling tools', async () => {
    const fresh = new FakeOpenAiServer({ fallback: () => call('print(1)') });
    await fresh.start();
    try {
      const sandbox = new FakeSandbox({ handler: () => ({ stdout: '1\n' }) });
      const { interpreter } = wire(fresh, sandbox, { maxRounds: 4 });
      const result = await interpreter.handle(input('go'), {});
      expect(result.outcome).toBe('budget');
      expect(fresh.requests).toHaveLength(4);
      expect(sandbox.runs).toHaveLength(3);
      expect(result.text).toContain('What was done so far (3 runs');
    } finally {
      await fresh.stop();
    }
  });

  it('cancels a turn while the model is thinking', async () => {
    server.push({ kind: 'hang' });
    const { interpreter } = wire(server, new FakeSandbox());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await interpreter.handle(input('hi'), { signal: controller.signal });
    expect(result.outcome).toBe('cancelled');
  });

  it('cancels at once while the client waits out a long retry-after', async () => {
    server.push({ kind: 'error', status: 429, headers: { 'retry-after': '30' } });
    const { interpreter } = wire(server, new FakeSandbox(), { maxRetries: 2 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const result = await interpreter.handle(input('hi'), { signal: controller.signal });
    expect(result.outcome).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.requests).toHaveLength(1);
  });

  it('trims a long thread and tells the model', async () => {
    const fresh = new FakeOpenAiServer({ fallback: (_b, i) => say(`answer ${i} ${'a'.repeat(300)}`) });
    await fresh.start();
    try {
      const { interpreter } = wire(fresh, new FakeSandbox(), { memoryTokens: 500 });
      for (let i = 0; i < 8; i += 1) await interpreter.handle(input(`question ${i} ${'q'.repeat(300)}`), {});
      const last = fresh.requests.at(-1)!.body;
      const sent = last.messages.map((m) => String(m.content)).join('\n');
      expect(sent).not.toContain('question 0 ');
      expect(sent).toContain('question 6 ');
      expect(systemOf(last)).toMatch(/Memory: \d+ earlier entries/);
      expect(fresh.requests[1]!.body.messages.length).toBe(4);
    } finally {
      await fresh.stop();
    }
  });
});
