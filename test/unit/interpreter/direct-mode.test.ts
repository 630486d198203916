import { describe, expect, it } from 'vitest';
import { parseDirectCode } from '../../../src/core/read-intent.js';
import { currentAuditScope, withAuditScope } from '../../../src/governance/audit/audit-scope.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';
import { directCode, input, rig, THREAD } from './helpers.js';

describe('direct mode', () => {
  it('recognises a message that is only a fenced python or bash block', () => {
    expect(parseDirectCode('```python\nprint(1)\n```')).toEqual({ language: 'python', code: 'print(1)' });
    expect(parseDirectCode('  ```py\nx = 2\nprint(x)\n```  \n')).toEqual({
      language: 'python',
      code: 'x = 2\nprint(x)',
    });
    expect(parseDirectCode('```\n1 + 1\n```')).toEqual({ language: 'python', code: '1 + 1' });
    expect(parseDirectCode('```bash\nls -la\n```')).toEqual({ language: 'bash', code: 'ls -la' });
    expect(parseDirectCode('```sh\necho hi\n```')).toEqual({ language: 'bash', code: 'echo hi' });
    expect(parseDirectCode('please run\n```python\nprint(1)\n```')).toBeUndefined();
    expect(parseDirectCode('```ruby\nputs 1\n```')).toBeUndefined();
    expect(parseDirectCode('```python\na\n```\nand\n```python\nb\n```')).toBeUndefined();
    expect(parseDirectCode('```python\n\n```')).toBeUndefined();
    expect(parseDirectCode('print(1)')).toBeUndefined();
  });

  it('runs the block as is without calling the LLM, and remembers it', async () => {
    const llm = new ScriptedLlm({ steps: [answer('x was 3')] });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '3\n' });
    const events: string[] = [];
    const result = await interpreter.runDirect(directCode('```python\nx = 3\nprint(x)\n```'), {
      onProgress: (e) => events.push(e.type),
    });
    expect(result).toMatchObject({ outcome: 'answer', direct: true, text: '' });
    expect(result.runs[0]).toMatchObject({ language: 'python', code: 'x = 3\nprint(x)', result: { stdout: '3\n' } });
    expect(sandbox.runs[0]!.request).toMatchObject({ language: 'python', code: 'x = 3\nprint(x)', timeoutMs: 30_000 });
    expect(llm.requests).toHaveLength(0);
    expect(events).toEqual(['code', 'output', 'run_finished']);

    await interpreter.handle(input('what was x?'), {});
    const remembered = llm.requests[0]!.messages.map((m) => String(m.content)).join('\n');
    expect(remembered).toContain('x = 3\nprint(x)');
    expect(remembered).toContain('→ ok: output: 3');
  });

  it('runDirect runs any code as is, even with fence lines inside, and remembers it', async () => {
    const { interpreter, sandbox, store } = rig();
    const code = 'print("""\n```\n""")';
    const result = await interpreter.runDirect({ threadKey: THREAD, language: 'python', code });
    expect(result).toMatchObject({ outcome: 'answer', direct: true, text: '' });
    expect(sandbox.runs[0]!.request.code).toBe(code);
    expect((await store.get(THREAD))!.history).toMatchObject([{ role: 'code', code, status: 'ok' }]);
  });

  it("runs every run in the asking user's audit scope, in direct mode and for the model's code (the egress audit names them)", async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(1)'), answer('done')] });
    const users: (string | null | undefined)[] = [];
    const sandbox = new FakeSandbox({ handler: () => (users.push(currentAuditScope()?.user), {}) });
    const { interpreter } = rig({ llm, sandbox });
    await withAuditScope({ user: 'U42', thread: THREAD, job: 'j1' }, () =>
      interpreter.runDirect({ threadKey: THREAD, language: 'python', code: 'print(2)' }),
    );
    await withAuditScope({ user: 'u1', thread: THREAD, job: 'j2' }, () =>
      interpreter.handle(input('run something'), {}),
    );
    expect(users).toEqual(['U42', 'u1']);
  });

  it('works without any LLM configured', async () => {
    const { interpreter, sandbox } = rig();
    sandbox.enqueue({ stdout: 'hi\n' });
    const result = await interpreter.runDirect(directCode('```bash\necho hi\n```'), {});
    expect(result).toMatchObject({ outcome: 'answer', direct: true });
    expect(sandbox.runs[0]!.request.language).toBe('bash');
    expect(sandbox.runs[0]!.key).toBe(THREAD);
  });

  it('explains how to configure an LLM for natural language without one', async () => {
    const { interpreter, sandbox } = rig();
    const result = await interpreter.handle(input('what is the mean of column a?'), {});
    expect(result.outcome).toBe('not_configured');
    expect(result.direct).toBe(false);
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', '```python'])
      expect(result.text).toContain(name);
    expect(sandbox.runs).toHaveLength(0);
  });
});
