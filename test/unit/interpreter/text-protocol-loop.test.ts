import { describe, expect, it } from 'vitest';
import { ThreadlabError } from '../../../src/domain/errors.js';
import type { LlmMessage } from '../../../src/ports/llm-client.js';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';
import { input, PNG_1PX, rig } from './helpers.js';

const TRACEBACK = 'Traceback (most recent call last):\n  File "<cell>", line 1, in <module>\nKeyError: \'Revenue\'';
const said = (content: string) => ({ ...answer(content), finishReason: 'stop' as const });
const fence = (code: string, tag = 'python') => `\`\`\`${tag}\n${code}\n\`\`\``;
const textOf = (m: LlmMessage | undefined): string =>
  typeof m?.content === 'string'
    ? m.content
    : (m?.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');

describe('the text protocol (models without tool calling)', () => {
  it('runs fenced blocks, sends the traceback back, the fix runs, the chart is shown, the answer is clean', async () => {
    const llm = new ScriptedLlm({
      steps: [
        said(`Let me look.\n${fence('df = pd.read_csv("sales.csv")\nprint(df["Revenue"].sum())')}`),
        said(`The column is lower case.\n${fence('print(df["revenue"].sum())')}\n${fence('df.plot(); plt.show()')}`),
        said('Total revenue is **20.75**; the chart shows March highest.'),
      ],
    });
    const { interpreter, sandbox } = rig({ llm, settings: { tools: 'text' } });
    sandbox.enqueue(
      { error: { name: 'KeyError', value: "'Revenue'", traceback: TRACEBACK } },
      { stdout: '20.75\n' },
      { displays: [{ data: { 'image/png': PNG_1PX }, meta: { title: 'Revenue' } }] },
    );
    const result = await interpreter.handle(input('total revenue and a chart'));

    expect(result.outcome).toBe('answer');
    expect(result.text).toBe('Total revenue is **20.75**; the chart shows March highest.');
    expect(result.runs.map((r) => [r.language, r.result.status])).toEqual([
      ['python', 'error'],
      ['python', 'ok'],
      ['python', 'ok'],
    ]);
    // No tools were offered; the system prompt explains fenced blocks.
    expect(llm.requests.every((r) => r.tools.length === 0)).toBe(true);
    expect(textOf(llm.requests[0]!.messages[0])).toContain('write the code in a fenced block tagged with its language');
    // The traceback came back as a user message, and the model's own message kept its blocks.
    const second = llm.requests[1]!.messages;
    expect(second.at(-2)).toMatchObject({ role: 'assistant', content: expect.stringContaining('```python') });
    expect(second.at(-1)!.role).toBe('user');
    expect(textOf(second.at(-1))).toMatch(
      /Block 1 \(python\):\nstatus: error[^\n]*\nerror: KeyError: 'Revenue'\ntraceback:/,
    );
    expect(second.some((m) => m.role === 'tool')).toBe(false);
    // Both blocks of the second reply ran in order; the chart came back as an image part.
    const third = llm.requests[2]!.messages.at(-1)!;
    expect(textOf(third)).toContain('Block 1 (python):');
    expect(textOf(third)).toContain('Block 2 (python):');
    expect(Array.isArray(third.content) && third.content.some((p) => p.type === 'image')).toBe(true);
  });

  it('auto: a server that refuses tools gets the same round again as fenced blocks, and so does the next turn', async () => {
    const refused = new ThreadlabError(
      'llm_tools_unsupported',
      'The model server refuses tools for gemma: "does not support tools".',
      { isPolicy: true },
    );
    const llm = new ScriptedLlm({
      steps: [refused, said(fence('print(6 * 7)')), said('It is 42.'), said(fence('print(1)')), said('One.')],
    });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '42\n' }, { stdout: '1\n' });
    const first = await interpreter.handle(input('6 times 7?'));
    expect(first).toMatchObject({ outcome: 'answer', text: 'It is 42.' });
    expect(llm.requests.map((r) => r.tools.length)).toEqual([1, 0, 0]);
    await interpreter.handle(input('and one?'));
    expect(llm.requests.slice(3).map((r) => r.tools.length)).toEqual([0, 0]);
    expect(interpreter.protocol.reasonFor({ model: 'scripted-model' })).toBe('server refuses tools');
  });

  it('native: a server that refuses tools ends the turn with its reason and the setting, not "try again"', async () => {
    const llm = new ScriptedLlm({
      steps: [
        new ThreadlabError(
          'llm_tools_unsupported',
          'The model server refuses tools for gemma: "does not support tools". Set THREADLAB_LLM_TOOLS=auto (or text)',
          { isPolicy: true },
        ),
      ],
    });
    const result = await rig({ llm, settings: { tools: 'native' } }).interpreter.handle(input('hi'));
    expect(result.outcome).toBe('failed');
    expect(result.text).toContain('refused the request');
    expect(result.text).toContain('THREADLAB_LLM_TOOLS');
    expect(result.text).not.toMatch(/could not be reached|try again/i);
  });

  it('auto: a tool call written as text (tool parser mismatch) runs, and its markup never reaches the user', async () => {
    const call = `<tool_call>\n{"name": "run_code", "arguments": {"language": "python", "code": "print(3)"}}\n</tool_call>`;
    const llm = new ScriptedLlm({ steps: [said(call), said('It printed 3.')] });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '3\n' });
    const result = await interpreter.handle(input('print 3'));
    expect(result).toMatchObject({ outcome: 'answer', text: 'It printed 3.' });
    expect(sandbox.runs.map((r) => r.request.code)).toEqual(['print(3)']);
    expect(llm.requests[1]!.tools).toEqual([]);
    expect(interpreter.protocol.reasonFor({ model: 'scripted-model' })).toBe('tool call written as text');
  });

  it('auto: a first answer that is an unexecuted fenced block is run, not posted; the second such turn switches', async () => {
    const llm = new ScriptedLlm({
      steps: [said(fence('print(2 + 2)')), said('It is 4.'), said(fence('print(3 + 3)')), said('It is 6.')],
    });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '4\n' }, { stdout: '6\n' });
    expect(await interpreter.handle(input('2+2?'))).toMatchObject({ outcome: 'answer', text: 'It is 4.' });
    expect(interpreter.protocol.current({ model: 'scripted-model' })).toBe('native');
    expect(await interpreter.handle(input('3+3?'))).toMatchObject({ outcome: 'answer', text: 'It is 6.' });
    expect(interpreter.protocol.current({ model: 'scripted-model' })).toBe('text');
    expect(sandbox.runs).toHaveLength(2);
  });

  it('a model that makes native calls may still show code in its answer: that is the answer', async () => {
    const llm = new ScriptedLlm({
      steps: [runCode('print(1)'), said('Done.'), said(`Here is how:\n${fence('df.describe()')}`)],
    });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '1\n' });
    await interpreter.handle(input('run'));
    const shown = await interpreter.handle(input('how do I describe a frame?'));
    expect(shown.text).toContain('```python\ndf.describe()');
    expect(sandbox.runs).toHaveLength(1);
  });

  it('Stop during a fenced block run ends the turn as cancelled, quoting the model’s words but not its block', async () => {
    const sleeper = `I will wait for the data first.\n\n${fence('import time; time.sleep(60)')}\n\nThen I sum it.`;
    const llm = new ScriptedLlm({ steps: [said(sleeper)] });
    const { interpreter, sandbox } = rig({ llm, settings: { tools: 'text' } });
    sandbox.enqueue({ delayMs: 60_000, stdout: '' });
    const controller = new AbortController();
    const pending = interpreter.handle(input('sleep'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    expect(result.outcome).toBe('cancelled');
    expect(result.runs[0]?.result).toMatchObject({ interruptedBy: 'cancelled' });
    // The block is the run listed above the note; quoted again it would read as code to run.
    expect(result.text).toContain('Last note from the model:\nI will wait for the data first.\n\nThen I sum it.');
    expect(result.text).not.toContain('```');
  });

  it('out of rounds: the last note quotes what the model said around its blocks, not the blocks', async () => {
    const llm = new ScriptedLlm({ steps: [said(fence('print(1)')), said(`One more look.\n${fence('print(2)')}`)] });
    const { interpreter, sandbox } = rig({ llm, settings: { tools: 'text', maxRounds: 2 } });
    sandbox.enqueue({ stdout: '1\n' });
    const result = await interpreter.handle(input('count'));
    expect(result.outcome).toBe('budget');
    expect(result.text).toContain('Last note from the model:\nOne more look.');
    expect(result.text).not.toContain('```');
  });

  it('a block in a language the sandbox lacks: the model is told once, then its answer stands', async () => {
    const llm = new ScriptedLlm({ steps: [said(fence('puts 1', 'ruby')), said(fence('print(1)')), said('One.')] });
    const { interpreter, sandbox } = rig({ llm, settings: { tools: 'text' } });
    sandbox.enqueue({ stdout: '1\n' });
    const result = await interpreter.handle(input('one'));
    expect(result.text).toBe('One.');
    expect(textOf(llm.requests[1]!.messages.at(-1))).toContain('Not run: blocks tagged ruby');
  });
});
