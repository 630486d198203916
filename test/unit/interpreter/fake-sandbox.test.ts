import { describe, expect, it } from 'vitest';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';

describe('FakeSandbox (shared test fake)', () => {
  it('keeps files per key, reports created and modified artifacts and streams output', async () => {
    const sandbox = new FakeSandbox({
      handler: ({ request }) => ({ stdout: `ran ${request.code}\n`, writeFiles: { 'out.csv': request.code } }),
    });
    const seen: string[] = [];
    const first = await sandbox.run('a', { language: 'python', code: 'one', onStdout: (t) => seen.push(t) });
    expect(first).toMatchObject({
      status: 'ok',
      stdout: 'ran one\n',
      executionCount: 1,
      artifacts: [{ path: 'out.csv', change: 'created', mime: 'text/csv', bytes: 3 }],
    });
    const second = await sandbox.run('a', { language: 'python', code: 'two' });
    expect(second.artifacts).toEqual([{ path: 'out.csv', bytes: 3, mime: 'text/csv', change: 'modified' }]);
    expect(second.executionCount).toBe(2);
    expect(seen).toEqual(['ran one\n']);
    expect((await sandbox.readFile('a', 'out.csv')).toString()).toBe('two');
    expect(await sandbox.listFiles('b')).toEqual([]);
    await expect(sandbox.readFile('b', 'out.csv')).rejects.toMatchObject({ code: 'sandbox_file_rejected' });
    expect(sandbox.isLive('a')).toBe(true);
  });

  it('loses state with a killed run, says so in that run, and keeps scripted results first', async () => {
    const sandbox = new FakeSandbox({ results: [{ status: 'killed', killReason: 'memory' }, {}] });
    const killed = await sandbox.run('k', { language: 'python', code: 'x = [0] * 10**12' });
    expect(killed).toMatchObject({
      status: 'killed',
      killReason: 'memory',
      stateReset: { reason: expect.stringContaining('memory') },
    });
    expect(sandbox.isLive('k')).toBe(false);
    const next = await sandbox.run('k', { language: 'python', code: 'print(1)' });
    expect(next.stateReset).toBeUndefined();
    expect(next.executionCount).toBe(1);
    await sandbox.reset('k');
    expect(sandbox.calls.map((c) => c.method)).toEqual(['run', 'run', 'reset']);
  });

  it('a retired session keeps its files and says on the next run why its variables are gone', async () => {
    const sandbox = new FakeSandbox();
    await sandbox.putFile('r', 'data.csv', Buffer.from('a\n1\n'));
    await sandbox.run('r', { language: 'python', code: 'x = 1' });
    sandbox.retire('r', 'the session was idle');
    expect(sandbox.isLive('r')).toBe(false);
    expect((await sandbox.listFiles('r')).map((f) => f.path)).toEqual(['data.csv']);
    const next = await sandbox.run('r', { language: 'python', code: 'print(x)' });
    expect(next).toMatchObject({ stateReset: { reason: 'the session was idle' }, executionCount: 1 });
  });

  it('interrupts a slow run at its timeout as a timeout, and at an abort as a stop', async () => {
    const sandbox = new FakeSandbox({ handler: () => ({ delayMs: 5000 }) });
    const timedOut = await sandbox.run('t', { language: 'python', code: 'sleep', timeoutMs: 50 });
    expect(timedOut).toMatchObject({ status: 'timeout', interruptedBy: 'timeout' });
    expect(timedOut.error?.value).toContain('THREADLAB_SANDBOX_TIMEOUT_MS');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const aborted = await sandbox.run('t', { language: 'python', code: 'sleep', signal: controller.signal });
    expect(aborted).toMatchObject({ status: 'timeout', interruptedBy: 'cancelled' });
    expect(aborted.killReason).toBeUndefined();
  });
});
