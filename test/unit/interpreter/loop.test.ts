import { describe, expect, it } from 'vitest';
import { ThreadlabError } from '../../../src/domain/errors.js';
import type { ContentPart } from '../../../src/ports/llm-client.js';
import { answer, runCode, runCodeCall, ScriptedLlm, toolCalls } from '../../fakes/scripted-llm.js';
import { input, PNG_1PX, rig, toolMessages } from './helpers.js';

const TRACEBACK =
  'Traceback (most recent call last):\n  File "<cell>", line 1, in <module>\nZeroDivisionError: division by zero';

function imageParts(content: unknown): ContentPart[] {
  return Array.isArray(content) ? (content as ContentPart[]).filter((p) => p.type === 'image') : [];
}

describe('Interpreter loop', () => {
  it('fixes buggy code from its traceback, draws a chart, sees it and answers', async () => {
    const llm = new ScriptedLlm({
      steps: [
        runCode('x = 1 / 0'),
        runCode('x = 1 / 1\nprint(x)'),
        runCode('import matplotlib.pyplot as plt\nplt.plot([1, 2]); plt.title("Growth"); plt.show()'),
        answer('The chart "Growth" shows x rising from 1 to 2.'),
      ],
    });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue(
      { error: { name: 'ZeroDivisionError', value: 'division by zero', traceback: TRACEBACK } },
      { stdout: '1.0\n' },
      {
        displays: [{ data: { 'image/png': PNG_1PX, 'text/plain': '<Figure>' }, meta: { title: 'Growth' } }],
        writeFiles: { 'growth.png': 'png' },
      },
    );
    const events: string[] = [];
    const result = await interpreter.handle(input('plot growth'), { onProgress: (e) => events.push(e.type) });

    expect(result.outcome).toBe('answer');
    expect(result.text).toContain('chart "Growth"');
    expect(result.runs.map((r) => r.result.status)).toEqual(['error', 'ok', 'ok']);
    expect(result.usage).toEqual({ promptTokens: 400, completionTokens: 80 });
    // What the model was shown after the failing run: the error and its traceback.
    const afterBug = toolMessages(llm.requests[1]!.messages);
    expect(afterBug[0]).toContain('status: error');
    expect(afterBug[0]).toContain('error: ZeroDivisionError: division by zero');
    expect(afterBug[0]).toContain('File "<cell>", line 1');
    expect(toolMessages(llm.requests[2]!.messages)[1]).toContain('stdout:\n1.0');
    // After the chart: the tool result names it and lists the file, and the image itself follows.
    const last = llm.requests[3]!.messages;
    const chartResult = toolMessages(last)[2]!;
    expect(chartResult).toContain('image/png chart "Growth"');
    expect(chartResult).toContain('/mnt/data/growth.png (created');
    const imageMessage = last[last.length - 1]!;
    expect(imageMessage.role).toBe('user');
    expect(imageParts(imageMessage.content)).toEqual([{ type: 'image', mime: 'image/png', base64: PNG_1PX }]);
    expect(events).toEqual(
      expect.arrayContaining(['thinking', 'code', 'output', 'display', 'file', 'run_finished', 'text']),
    );
    expect(events.filter((e) => e === 'thinking')).toHaveLength(4);
  });

  it('does not send images when THREADLAB_LLM_IMAGES is off or the model cannot read them', async () => {
    for (const [images, acceptsImages] of [
      [false, true],
      [true, false],
    ] as const) {
      const llm = new ScriptedLlm({ acceptsImages, steps: [runCode('plt.show()'), answer('done')] });
      const { interpreter, sandbox } = rig({ llm, settings: { images } });
      sandbox.enqueue({ displays: [{ data: { 'image/png': PNG_1PX } }] });
      await interpreter.handle(input('chart'), {});
      const sent = llm.requests[1]!.messages;
      expect(sent.some((m) => imageParts(m.content).length > 0)).toBe(false);
      expect(toolMessages(sent)[0]).toContain('image/png chart');
    }
  });

  it('sends malformed tool arguments and unknown tools back as errors, without running anything', async () => {
    const llm = new ScriptedLlm({
      steps: [
        toolCalls([{ id: 'bad1', name: 'run_code', arguments: '{"language": "python", "code": "print(1)' }]),
        toolCalls([
          { id: 'bad2', name: 'run_code', arguments: '{"language": "ruby", "code": "puts 1"}' },
          { id: 'bad3', name: 'web_search', arguments: '{"query": "pandas"}' },
        ]),
        runCode('print(1)'),
        answer('1'),
      ],
    });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '1\n' });
    const result = await interpreter.handle(input('print one'), {});

    expect(result.outcome).toBe('answer');
    expect(sandbox.runs).toHaveLength(1);
    const first = llm.requests[1]!.messages.find((m) => m.role === 'tool');
    expect(first).toMatchObject({ toolCallId: 'bad1' });
    expect(first?.content).toMatch(/not valid JSON.*Nothing ran/s);
    const second = toolMessages(llm.requests[2]!.messages);
    expect(second[1]).toContain('invalid arguments for run_code (language:');
    expect(second[2]).toContain('unknown tool "web_search"');
  });

  it('answers a refusal once with a correction, then accepts the answer', async () => {
    const llm = new ScriptedLlm({
      steps: [
        {
          content: null,
          toolCalls: [],
          finishReason: 'stop',
          usage: { promptTokens: 1, completionTokens: 1 },
          refusal: 'I cannot help.',
        },
        answer('Sure: 42.'),
      ],
    });
    const { interpreter } = rig({ llm });
    const result = await interpreter.handle(input('meaning of life'), {});
    expect(result).toMatchObject({ outcome: 'answer', text: 'Sure: 42.' });
    const note = llm.requests[1]!.messages.at(-1);
    expect(note?.role).toBe('user');
    expect(String(note?.content)).toContain('refusal');
  });

  it('stops a model that never stops calling tools at maxRounds and says what was done', async () => {
    const llm = new ScriptedLlm({ fallback: () => toolCalls([runCodeCall('print("again")')]) });
    const { interpreter, sandbox } = rig({ llm, settings: { maxRounds: 3 } });
    sandbox.enqueue({ stdout: 'again\n' }, { stdout: 'again\n' });
    const result = await interpreter.handle(input('loop forever'), {});

    expect(result.outcome).toBe('budget');
    expect(llm.requests).toHaveLength(3);
    expect(sandbox.runs).toHaveLength(2);
    expect(result.text).toContain('THREADLAB_LLM_MAX_ROUNDS');
    expect(result.text).toContain('What was done so far (2 runs');
    expect(result.text).toContain('print("again")');
    expect(String(llm.requests[2]!.messages.at(-1)?.content)).toContain('last round');
  });

  it('stops when the token budget would be exceeded', async () => {
    const llm = new ScriptedLlm({
      fallback: () => runCode('print(1)', 'python', { promptTokens: 700, completionTokens: 100 }),
    });
    const { interpreter, sandbox } = rig({ llm, settings: { tokenBudget: 1000 } });
    sandbox.enqueue({ stdout: '1\n' });
    const result = await interpreter.handle(input('count'), {});
    expect(result.outcome).toBe('budget');
    expect(llm.requests).toHaveLength(1);
    expect(result.usage).toEqual({ promptTokens: 700, completionTokens: 100 });
    expect(result.text).toContain('about 800 tokens of its 1000-token budget (THREADLAB_LLM_TOKEN_BUDGET)');
  });

  it('estimates tokens when the server reports no usage, so the budget still holds', async () => {
    const zero = { promptTokens: 0, completionTokens: 0 };
    const llm = new ScriptedLlm({ fallback: () => runCode('print(1)', 'python', zero) });
    const { interpreter, sandbox } = rig({ llm, settings: { tokenBudget: 1000, maxRounds: 50 } });
    sandbox.enqueue(...Array.from({ length: 60 }, () => ({ stdout: 'x'.repeat(1000) })));
    const result = await interpreter.handle(input('count'), {});
    expect(result.outcome).toBe('budget');
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    expect(llm.requests.length).toBeLessThan(10);
  });

  it('stops at the turn time limit, interrupting the running code', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('import time; time.sleep(60)')] });
    // 1.5 s, not less: on a loaded machine the turn's set-up alone can take a few hundred ms, and the
    // deadline must land while the (10 s) run is under way.
    const { interpreter, sandbox } = rig({ llm, settings: { turnTimeoutMs: 1500 } });
    sandbox.enqueue({ delayMs: 10_000 });
    const started = Date.now();
    const result = await interpreter.handle(input('sleep'), {});
    expect(Date.now() - started).toBeLessThan(6000);
    expect(result.outcome).toBe('budget');
    expect(result.text).toContain('THREADLAB_LLM_TURN_TIMEOUT_MS');
    expect(sandbox.runs[0]!.request.timeoutMs).toBeLessThanOrEqual(1500);
  });

  it('ends as cancelled when the user stops the turn', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('import time; time.sleep(60)')] });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ delayMs: 10_000 });
    const controller = new AbortController();
    const pending = interpreter.handle(input('sleep'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    expect(result.outcome).toBe('cancelled');
    expect(result.text).toContain('Stopped at your request');
    expect(result.runs[0]?.result).toMatchObject({ status: 'timeout', interruptedBy: 'cancelled' });
  });

  it('reports an LLM API failure as a failed turn, but throws sandbox and programmer errors', async () => {
    const failing = new ScriptedLlm({
      steps: [
        new ThreadlabError('llm_rate_limited', 'The model API is rate limiting requests (429) after 4 attempts', {
          isRetryable: true,
        }),
      ],
    });
    const failed = await rig({ llm: failing }).interpreter.handle(input('hi'), {});
    expect(failed.outcome).toBe('failed');
    expect(failed.text).toContain('rate limiting requests (429)');
    expect(failed.text).toContain('OPENAI_BASE_URL');

    const buggy = new ScriptedLlm({ steps: [new TypeError('bug in the client')] });
    await expect(rig({ llm: buggy }).interpreter.handle(input('hi'), {})).rejects.toThrow(TypeError);

    const llm = new ScriptedLlm({ steps: [runCode('print(1)')] });
    const broken = rig({ llm });
    broken.sandbox.enqueue({ throws: new ThreadlabError('docker_unreachable', 'Docker is not running') });
    await expect(broken.interpreter.handle(input('hi'), {})).rejects.toMatchObject({ code: 'docker_unreachable' });
  });
});
