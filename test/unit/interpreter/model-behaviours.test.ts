/**
 * What real models do (issue 37), through the interpreter loop with a scripted model: the loop breaker, tool names
 * and argument shapes models were trained on, narration instead of action, and an empty final answer. The
 * end-to-end tests (test/e2e/model-servers/behaviours.test.ts) play the same behaviours through the shipped
 * processes with fakes that cite the public reports.
 */
import { describe, expect, it } from 'vitest';
import type { LlmResponse } from '../../../src/ports/llm-client.js';
import { answer, runCode, ScriptedLlm, toolCalls } from '../../fakes/scripted-llm.js';
import { input, rig, toolMessages } from './helpers.js';

const KEY_ERROR = { status: 'error' as const, error: { name: 'KeyError', value: "'revenue'", traceback: 'KeyError' } };
const silent: LlmResponse = {
  content: '',
  toolCalls: [],
  finishReason: 'stop',
  usage: { promptTokens: 1, completionTokens: 0 },
};

describe('the loop breaker', () => {
  it('tells the model of its second identical failure and ends the turn at the third, in 3 model requests', async () => {
    const code = "df = pd.read_csv('sales.csv')\nprint(df['revenue'].sum())";
    // The same code each time, give or take whitespace and a comment: still the same code.
    const variants = [
      code,
      `${code.replace("df['revenue']", "df[ 'revenue' ]")}\n`,
      `# total revenue\n${code.replace('\n', '\n\n')}  # sum it`,
    ];
    let i = 0;
    const llm = new ScriptedLlm({ fallback: () => runCode(variants[i++ % variants.length]!) });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue(KEY_ERROR, KEY_ERROR, KEY_ERROR);
    const result = await interpreter.handle(input('total revenue?'), {});

    expect(llm.requests).toHaveLength(3);
    expect(sandbox.runs).toHaveLength(3);
    expect(result.outcome).toBe('budget');
    expect(result.behaviour).toEqual(['repeated_failure', 'loop_stopped']);
    expect(result.text).toContain("the same code 3 times and it failed the same way each time (KeyError: 'revenue')");
    expect(result.text).toContain('What you could do');
    expect(result.text).not.toContain('THREADLAB_LLM_MAX_ROUNDS');
    // Told once, with the second failure's result; not with the first.
    const [first] = toolMessages(llm.requests[1]!.messages);
    expect(first).not.toContain('same code');
    const second = toolMessages(llm.requests[2]!.messages)[1];
    expect(second).toContain("You already ran this same code and it failed the same way (KeyError: 'revenue')");
  });

  it('lets a model that changes its code after the note go on, and does not count different errors together', async () => {
    const llm = new ScriptedLlm({
      steps: [runCode('print(df["revenue"])'), runCode('print(df["revenue"])'), runCode('print(df.columns)')],
      fallback: answer('The table has no revenue column; it has sales.'),
    });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue(KEY_ERROR, KEY_ERROR, { stdout: "Index(['sales'])\n" });
    const result = await interpreter.handle(input('total revenue?'), {});
    expect(result.outcome).toBe('answer');
    expect(result.behaviour).toEqual(['repeated_failure']);

    // Same code, different errors each time: not a loop.
    const again = new ScriptedLlm({
      steps: [runCode('step()'), runCode('step()'), runCode('step()')],
      fallback: answer('done'),
    });
    const other = rig({ llm: again });
    other.sandbox.enqueue(
      { status: 'error', error: { name: 'ValueError', value: 'a', traceback: '' } },
      { status: 'error', error: { name: 'ValueError', value: 'b', traceback: '' } },
      { status: 'error', error: { name: 'ValueError', value: 'c', traceback: '' } },
    );
    const outcome = await other.interpreter.handle(input('go'), {});
    expect(outcome.outcome).toBe('answer');
    expect(outcome.behaviour).toBeUndefined();
  });

  it("keeps a turn's native protocol when another turn moves the endpoint to the text protocol mid-way", async () => {
    const llm = new ScriptedLlm({
      steps: [
        runCode('x = 1'),
        (request) => {
          // Another turn of the same endpoint and model meets a call written as text, between this turn's rounds.
          made.interpreter.protocol.switchToText({ model: llm.model }, 'tool call written as text');
          expect(request.tools.map((t) => t.name)).toEqual(['run_code']);
          return runCode('print(x)');
        },
        answer('x is 1.'),
      ],
    });
    const made = rig({ llm });
    made.sandbox.enqueue({}, { stdout: '1\n' });
    const result = await made.interpreter.handle(input('x?'), {});
    expect(result).toMatchObject({ outcome: 'answer', text: 'x is 1.' });
    expect(llm.requests[2]!.tools).toEqual(['run_code']);
    // The next turn uses what was learned.
    await made.interpreter.handle(input('again'), {}).catch(() => undefined);
    expect(llm.requests[3]?.tools ?? []).toEqual([]);
  });

  it('leaves a well-behaved turn as it was: no behaviour recorded, the answer unchanged', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(2 + 2)'), answer('It is 4.')] });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '4\n' });
    const result = await interpreter.handle(input('2+2?'), {});
    expect(result).toMatchObject({ outcome: 'answer', text: 'It is 4.' });
    expect(result.behaviour).toBeUndefined();
  });
});

describe('tool names and arguments models were trained on', () => {
  it.each([
    ['gpt-oss: python with raw source', 'python', 'print(6 * 7)', 'python', 'print(6 * 7)'],
    ['Qwen: code_interpreter with code', 'code_interpreter', '{"code": "print(6 * 7)"}', 'python', 'print(6 * 7)'],
    ['functions.run_code', 'functions.run_code', '{"language": "python", "code": "print(1)"}', 'python', 'print(1)'],
    ['execute_python with source', 'execute_python', '{"source": "x = 1"}', 'python', 'x = 1'],
    ['bash with command', 'bash', '{"command": "ls -l"}', 'bash', 'ls -l'],
    ['shell with an argv', 'shell', '{"command": ["bash", "-lc", "wc -l data.csv"]}', 'bash', 'wc -l data.csv'],
    ['run_code with a JSON string', 'run_code', '"print(3)"', 'python', 'print(3)'],
    [
      'run_code with raw source',
      'run_code',
      'import pandas as pd\nprint(pd.__version__)',
      'python',
      'import pandas as pd\nprint(pd.__version__)',
    ],
    ['jupyter with a capitalised language', 'jupyter', '{"language": "Python", "script": "1 + 1"}', 'python', '1 + 1'],
  ])('%s runs as run_code', async (_name, tool, args, language, code) => {
    const llm = new ScriptedLlm({
      steps: [toolCalls([{ id: 'c1', name: tool, arguments: args }])],
      fallback: answer('Done.'),
    });
    const { interpreter, sandbox } = rig({ llm });
    const result = await interpreter.handle(input('go'), {});
    expect(sandbox.runs.map((r) => ({ language: r.request.language, code: r.request.code }))).toEqual([
      { language, code },
    ]);
    expect(result.behaviour?.some((b) => b === 'tool_renamed' || b === 'raw_arguments')).toBe(true);
    // The conversation goes back to the server with the real tool, so the model sees it and the server accepts it.
    const sent = llm.requests[1]!.messages.find((m) => m.role === 'assistant');
    expect(sent).toMatchObject({ toolCalls: [{ id: 'c1', name: 'run_code' }] });
    expect(JSON.parse(sent?.role === 'assistant' ? sent.toolCalls![0]!.arguments : '')).toEqual({ language, code });
  });

  it('tells a model calling an unknown tool what the real tool and its arguments are', async () => {
    const llm = new ScriptedLlm({
      steps: [toolCalls([{ id: 'c1', name: 'browser.search', arguments: '{"query": "x"}' }])],
      fallback: answer('ok'),
    });
    const { interpreter, sandbox } = rig({ llm });
    const result = await interpreter.handle(input('go'), {});
    expect(sandbox.runs).toHaveLength(0);
    const [told] = toolMessages(llm.requests[1]!.messages);
    expect(told).toContain('unknown tool "browser.search"');
    expect(told).toContain(
      'The only tool is run_code, called with JSON arguments {"language": "python" | "bash", "code": string}',
    );
    expect(result.behaviour).toEqual(['unknown_tool']);
  });
});

describe('narration instead of action', () => {
  it('nudges a reply that only announces work once, then runs what the model does next', async () => {
    const llm = new ScriptedLlm({
      steps: [
        answer("I'll calculate the mean of column v using pandas."),
        runCode('print(df.v.mean())'),
        answer('The mean is 2.5.'),
      ],
    });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '2.5\n' });
    const result = await interpreter.handle(input('mean of v?'), {});
    expect(result).toMatchObject({ outcome: 'answer', text: 'The mean is 2.5.', behaviour: ['narration'] });
    expect(String(llm.requests[1]!.messages.at(-1)!.content)).toContain('nothing ran');
  });

  it('posts the announcement only when the nudge also brings nothing', async () => {
    const llm = new ScriptedLlm({
      steps: [answer('Let me load the file and check it.'), answer('Let me load the file and check it first.')],
    });
    const { interpreter } = rig({ llm });
    const result = await interpreter.handle(input('check it'), {});
    expect(result).toMatchObject({ outcome: 'answer', text: 'Let me load the file and check it first.' });
    expect(result.behaviour).toEqual(['narration', 'narration_posted']);
    expect(llm.requests).toHaveLength(2);
  });

  it.each([
    'Which column do you mean by "value": v or w? I will compute it once you say.',
    'The mean of v is 2.5, computed above.',
    'Hello! Upload a spreadsheet and ask me about it.',
  ])('answers that are not announcements pass unchanged: %s', async (text) => {
    const llm = new ScriptedLlm({ steps: [answer(text)] });
    const { interpreter } = rig({ llm });
    const result = await interpreter.handle(input('hi'), {});
    expect(result).toMatchObject({ outcome: 'answer', text });
    expect(llm.requests).toHaveLength(1);
  });
});

describe('an empty final answer', () => {
  it('shows the last run result with a line saying the model wrote no text, after one nudge', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(sum(range(10)))'), silent, silent] });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '45\n' });
    const result = await interpreter.handle(input('sum 0..9'), {});
    expect(result.outcome).toBe('answer');
    expect(result.text).toContain('The model wrote no answer text, so here is what its last run gave.');
    expect(result.text).toContain('45');
    expect(result.text).not.toContain('finished without an answer');
    expect(result.behaviour).toEqual(['empty_answer']);
    expect(llm.requests).toHaveLength(3);
  });

  it('says plainly that there is no answer when nothing ran and the model stayed silent', async () => {
    const llm = new ScriptedLlm({ steps: [silent, silent] });
    const { interpreter } = rig({ llm });
    const result = await interpreter.handle(input('hm'), {});
    expect(result.text).toMatch(/empty reply twice, so there is no answer/);
    expect(result.text.trim()).not.toBe('');
  });
});
