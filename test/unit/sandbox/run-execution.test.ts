import { describe, expect, it } from 'vitest';
import type { LiveContainer } from '../../../sandbox/live-container.js';
import { executeRun } from '../../../sandbox/run-execution.js';
import { resultFrameSchema } from '../../../sandbox/runner-protocol.js';
import { FakeRunner, resultFrame } from './fake-runner.js';

function fakeLive(runner: FakeRunner, exit = { oomKilled: false, exitCode: 1 as number | undefined }) {
  const calls: string[] = [];
  const live = {
    connection: runner.connect(),
    kill: async () => {
      calls.push('kill');
      runner.end();
    },
    exitState: async () => exit,
  } as unknown as LiveContainer;
  return { live, calls };
}

/** The runner answers a run only when interrupted, with a result frame carrying `overrides`. */
function answerInterruptWith(runner: FakeRunner, overrides: Record<string, unknown>): void {
  let runId = '';
  runner.onRequest = (req) => {
    if (req.op === 'run') runId = String(req.id);
    if (req.op === 'interrupt') runner.send(resultFrame(runId, overrides));
  };
}

const base = { timeoutMs: 200, graceMs: 100, outputBytes: 1000, maxFileBytes: 1000, maxRunFilesBytes: 2000 };

describe('executeRun', () => {
  it('maps a result frame and collects streamed displays', async () => {
    const runner = new FakeRunner();
    const { live } = fakeLive(runner);
    runner.onRequest = (req) => {
      runner.send({ type: 'display', id: req.id, data: { 'text/plain': '42' } });
      runner.send(
        resultFrame(String(req.id), {
          stdout: 'out',
          deleted: ['gone.txt'],
          artifacts: [{ path: 'a.csv', bytes: 3, mime: 'text/csv', change: 'created' }],
        }),
      );
    };
    const outcome = await executeRun({ ...base, live, request: { language: 'python', code: '42' } });
    expect(outcome.lost).toBe(false);
    expect(outcome.deleted).toEqual(['gone.txt']);
    expect(outcome.result).toMatchObject({
      status: 'ok',
      stdout: 'out',
      displays: [{ data: { 'text/plain': '42' } }],
      artifacts: [{ path: 'a.csv' }],
    });
  });

  it('interrupts at the deadline and keeps the session when the code yields', async () => {
    const runner = new FakeRunner();
    const { live, calls } = fakeLive(runner);
    answerInterruptWith(runner, {
      status: 'interrupted',
      error: { name: 'KeyboardInterrupt', value: '', traceback: 'tb' },
    });
    const outcome = await executeRun({ ...base, live, request: { language: 'python', code: 'loop' } });
    expect(outcome.result.status).toBe('timeout');
    expect(outcome.result.error?.value).toContain('THREADLAB_SANDBOX_TIMEOUT_MS');
    expect(outcome.lost).toBe(false);
    expect(calls).toEqual([]);
  });

  it('kills the container when the code ignores the interrupt', async () => {
    const runner = new FakeRunner();
    const { live, calls } = fakeLive(runner);
    runner.onRequest = (req) => {
      if (req.op === 'run') runner.send({ type: 'stdout', id: req.id, text: 'partial' });
    };
    const outcome = await executeRun({ ...base, live, request: { language: 'python', code: 'stubborn' } });
    expect(calls).toEqual(['kill']);
    expect(outcome.lost).toBe(true);
    expect(outcome.result).toMatchObject({ status: 'killed', killReason: 'timeout', stdout: 'partial' });
    expect(outcome.result.stateReset?.reason).toBeTruthy();
  });

  it('maps a kernel the supervisor replaced: killed for the cause it names, the container kept', async () => {
    const runner = new FakeRunner();
    const { live, calls } = fakeLive(runner);
    answerInterruptWith(runner, {
      status: 'killed',
      stoppedProcesses: 3,
      kernelRestart: { cause: 'unresponsive', detail: 'the code did not stop; a new one was started' },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const outcome = await executeRun({
      ...base,
      live,
      request: { language: 'python', code: 'stubborn', signal: controller.signal },
    });
    expect(calls).toEqual([]);
    expect(outcome.lost).toBe(false);
    expect(outcome.result).toMatchObject({
      status: 'killed',
      killReason: 'cancelled',
      stoppedProcesses: 3,
      stateReset: { reason: 'the code did not stop; a new one was started' },
      error: { name: 'SandboxKilled' },
    });
  });

  it('says the variables were reset when the kernel died between runs, and the run itself is kept', async () => {
    const runner = new FakeRunner();
    const { live } = fakeLive(runner);
    runner.onRequest = (req) =>
      runner.send(
        resultFrame(String(req.id), {
          stdout: 'ran',
          kernelRestart: { cause: 'memory', detail: 'out of memory between runs' },
        }),
      );
    const outcome = await executeRun({ ...base, live, request: { language: 'python', code: 'x' } });
    expect(outcome.result).toMatchObject({
      status: 'ok',
      stdout: 'ran',
      stateReset: { reason: 'out of memory between runs' },
    });
    expect(outcome.result.killReason).toBeUndefined();
  });

  it('accepts no result frame claiming an unknown restart cause or a negative process count', () => {
    expect(resultFrameSchema.safeParse(resultFrame('1', { stoppedProcesses: 2 })).success).toBe(true);
    for (const claim of [{ kernelRestart: { cause: 'reboot', detail: 'x' } }, { stoppedProcesses: -1 }]) {
      expect(resultFrameSchema.safeParse(resultFrame('1', claim)).success).toBe(false);
    }
  });

  it('sends an early abort only after the run request, and reports cancellation', async () => {
    const runner = new FakeRunner();
    const { live } = fakeLive(runner);
    runner.onRequest = (req) => {
      if (req.op === 'interrupt') runner.send(resultFrame('1', { status: 'interrupted' }));
    };
    const controller = new AbortController();
    controller.abort();
    const outcome = await executeRun({
      ...base,
      timeoutMs: 10_000,
      live,
      request: { language: 'bash', code: 'sleep 9', signal: controller.signal },
    });
    expect(runner.requests.map((r) => r.op)).toEqual(['run', 'interrupt']);
    // It names the run, which the runner may not have begun yet (then the run begins interrupted).
    expect(runner.requests[1]?.id).toBe(runner.requests[0]?.id);
    expect(outcome.result.status).toBe('timeout');
    expect(outcome.result.error?.value).toMatch(/stopped by the user/);
  });

  it("reports a user's stop as a stop when the interrupt lands between the code and the runner's answer", async () => {
    // The runner's run ended just as the interrupt arrived: it answers with an error frame, not a result.
    const runner = new FakeRunner();
    const { live, calls } = fakeLive(runner);
    const controller = new AbortController();
    let runId = '';
    runner.onRequest = (req) => {
      if (req.op === 'run') {
        runId = String(req.id);
        controller.abort();
      }
      if (req.op === 'interrupt') runner.send({ type: 'error', id: runId, message: 'interrupted' });
    };
    const outcome = await executeRun({
      ...base,
      timeoutMs: 10_000,
      live,
      request: { language: 'python', code: 'x = 1', signal: controller.signal },
    });
    expect(runner.requests.map((r) => r.op)).toEqual(['run', 'interrupt']);
    expect(outcome.lost).toBe(false);
    expect(calls).toEqual([]);
    expect(outcome.result.status).toBe('timeout');
    expect(outcome.result.interruptedBy).toBe('cancelled');
    expect(outcome.result.error?.value).toMatch(/stopped by the user/);
    expect(outcome.result.error?.value).not.toContain('THREADLAB_SANDBOX_TIMEOUT_MS');
  });

  it('reports an out-of-memory kill', async () => {
    const runner = new FakeRunner();
    const { live } = fakeLive(runner, { oomKilled: true, exitCode: 137 });
    runner.onRequest = () => runner.end();
    const outcome = await executeRun({
      ...base,
      timeoutMs: 10_000,
      live,
      request: { language: 'python', code: 'bomb' },
    });
    expect(outcome.result).toMatchObject({ status: 'killed', killReason: 'memory' });
    expect(outcome.result.stateReset?.reason).toContain('THREADLAB_SANDBOX_MEMORY_MB');
  });

  it('reports a crash with the exit status', async () => {
    const runner = new FakeRunner();
    const { live } = fakeLive(runner, { oomKilled: false, exitCode: 3 });
    runner.onRequest = () => runner.end();
    const outcome = await executeRun({
      ...base,
      timeoutMs: 10_000,
      live,
      request: { language: 'python', code: 'exit' },
    });
    expect(outcome.result).toMatchObject({ status: 'killed', killReason: 'crash' });
    expect(outcome.result.error?.value).toContain('status 3');
  });

  it("says gVisor's kernel stopped when a container under runsc exits with a Go panic's status", async () => {
    const crash = async (underGvisor: boolean) => {
      const runner = new FakeRunner();
      const { live } = fakeLive(runner, { oomKilled: false, exitCode: 2 });
      runner.onRequest = () => runner.end();
      const request = { language: 'python' as const, code: 'import os\nwhile True: os.fork()' };
      return (await executeRun({ ...base, timeoutMs: 10_000, live, request, underGvisor })).result;
    };
    const gvisor = await crash(true);
    expect(gvisor).toMatchObject({ status: 'killed', killReason: 'crash' });
    expect(gvisor.error?.value).toMatch(/^the sandbox's gVisor kernel stopped \(status 2\), .*host tasks/);
    expect(gvisor.stateReset?.reason).toBe(gvisor.error?.value);
    expect((await crash(false)).error?.value).toBe('the interpreter process exited (status 2)');
  });
});
