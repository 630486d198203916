import { describe, expect, it } from 'vitest';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';
import { input, rig, systemText, THREAD, toolMessages } from './helpers.js';

describe('what the model is shown', () => {
  it('states the environment and lists the thread files with previews computed in the sandbox', async () => {
    const llm = new ScriptedLlm({ steps: [answer('Revenue is highest in the north.')] });
    const { interpreter, sandbox } = rig({ llm });
    const csv = 'region,revenue,units\nnorth,10.5,3\nsouth,7.25,2\neast,3.0,1\n';
    const uploaded = await sandbox.putFile(THREAD, 'sales.csv', Buffer.from(csv));
    await sandbox.putFile(THREAD, 'notes.bin', Buffer.from([0, 1, 2]));
    await interpreter.handle({ ...input('which region sells most?'), uploaded: [uploaded] }, {});

    const system = systemText(llm.requests[0]!.messages);
    expect(system).toContain('Python 3.12.7 with: pandas 2.2.3, numpy 2.1.3, matplotlib 3.9.2');
    expect(system).toContain('/mnt/data');
    expect(system).toContain('No network access');
    expect(system).toContain('60 s per run, 1024 MB memory');
    expect(system).toContain('/mnt/data/sales.csv (');
    expect(system).toContain('[uploaded with this message]');
    expect(system).toContain('3 rows; columns: region (object), revenue (float64), units (int64)');
    expect(system).toContain('north,10.5,3');
    expect(system).toContain('/mnt/data/notes.bin');
    expect(sandbox.calls.find((c) => c.method === 'previewFiles')?.detail).toEqual({ paths: ['sales.csv'] });
    const user = llm.requests[0]!.messages.at(-1);
    expect(user).toEqual({
      role: 'user',
      content: 'which region sells most?\n\n(Uploaded with this message: sales.csv)',
    });
  });

  it("prepares the thread's sandbox before the model is asked, after the previews; code sent as is is not prepared", async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(1)'), answer('done')] });
    const { interpreter, sandbox } = rig({ llm });
    const uploaded = await sandbox.putFile(THREAD, 'sales.csv', Buffer.from('a,b\n1,2\n'));
    await interpreter.handle({ ...input('sum it'), uploaded: [uploaded] }, {});
    const methods = sandbox.calls.map((c) => c.method);
    expect(methods.filter((m) => m === 'prepare')).toHaveLength(1);
    expect(methods.indexOf('prepare')).toBeGreaterThan(methods.indexOf('previewFiles'));
    expect(methods.indexOf('prepare')).toBeLessThan(methods.indexOf('run'));

    // With approval before running, nothing is claimed for code a person may never let run.
    const gated = rig({ llm: new ScriptedLlm({ steps: [answer('no code needed')] }) });
    await gated.interpreter.handle(input('hello'), { approve: async () => ({ kind: 'run' as const, by: 'U-ADMIN' }) });
    expect(gated.sandbox.calls.map((c) => c.method)).not.toContain('prepare');

    const direct = rig({ llm: new ScriptedLlm({ steps: [] }) });
    await direct.interpreter.runDirect({ threadKey: THREAD, language: 'python', code: 'print(1)' }, {});
    expect(direct.sandbox.calls.map((c) => c.method)).not.toContain('prepare');
  });

  it('cuts long output head and tail and states how much was elided', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('for i in range(5000): print(i)'), answer('done')] });
    const { interpreter, sandbox } = rig({ llm });
    const stdout = `FIRST-LINE\n${'middle line\n'.repeat(3000)}LAST-LINE\n`;
    sandbox.enqueue({
      stdout,
      truncated: { stdoutBytes: 1234, stderrBytes: 0, fullOutputPath: '.threadlab/output-1.txt' },
    });
    await interpreter.handle(input('print a lot'), {});
    const tool = toolMessages(llm.requests[1]!.messages)[0]!;
    expect(tool.length).toBeLessThan(8000);
    expect(tool).toContain('FIRST-LINE');
    expect(tool).toContain('LAST-LINE');
    const elided = stdout.length - 6000;
    expect(tool).toContain(`[… ${elided} characters elided …]`);
    expect(tool).toContain(
      `stdout: [${elided} characters elided from the middle; the sandbox already left out 1234 bytes; full output saved to /mnt/data/.threadlab/output-1.txt]`,
    );
  });

  it('tells the model when the interpreter state was lost', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(df)'), answer('reloaded')] });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({
      stateReset: { reason: 'the container was recreated after being idle' },
      error: { name: 'NameError', value: "name 'df' is not defined", traceback: '' },
    });
    await interpreter.handle(input('show df'), {});
    const tool = toolMessages(llm.requests[1]!.messages)[0]!;
    expect(tool).toContain('interpreter state was reset');
    expect(tool).toContain('the container was recreated after being idle');
    expect(tool).toContain("NameError: name 'df' is not defined");
  });

  it('shows displayed values as text and stderr', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('df.head()'), answer('ok')] });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({
      stderr: 'DeprecationWarning: old\n',
      displays: [{ data: { 'text/plain': '   a  b\n0  1  2', 'text/html': '<table/>' } }],
    });
    await interpreter.handle(input('head'), {});
    const tool = toolMessages(llm.requests[1]!.messages)[0]!;
    expect(tool).toContain('stderr:\nDeprecationWarning: old');
    expect(tool).toContain('displayed values:\n[1]    a  b\n0  1  2');
  });

  it('passes the configured temperature and the run_code tool', async () => {
    const llm = new ScriptedLlm({ steps: [answer('hi')] });
    await rig({ llm, settings: { temperature: 0.2 } }).interpreter.handle(input('hello'), {});
    expect(llm.requests[0]).toMatchObject({ tools: ['run_code'], temperature: 0.2 });
  });
});
