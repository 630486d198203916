import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src/domain/execution.js';
import { createLogger } from '../../../src/logger.js';
import { HostTaskWatch } from '../../../sandbox/host-tasks.js';
import type { LiveContainer } from '../../../sandbox/live-container.js';
import type { Session } from '../../../sandbox/session-registry.js';

const logger = createLogger({ level: 'silent' });
const LIMIT = 1408;
const PIDS = 48;

/** The watch over one session whose container says `tasks` (undefined: the engine did not answer). */
function watch(o: { tasks: number | undefined; gvisor?: boolean }) {
  const live = {
    name: 'c1',
    isAlive: true,
    reads: 0,
    async hostTasks() {
      this.reads += 1;
      return o.tasks;
    },
  };
  const session = { hash: 'h1', live } as unknown as Session;
  const retired: string[] = [];
  let renewed = 0;
  let turn = Promise.resolve();
  const w = new HostTaskWatch({
    underGvisor: () => o.gvisor ?? true,
    limit: LIMIT,
    pids: PIDS,
    serialize: (_s, work) => (turn = turn.then(work)),
    retire: async (_s, reason) => {
      retired.push(reason);
    },
    onRenewed: () => (renewed += 1),
    logger,
  });
  const after = async (result: Partial<ExecutionResult>) => {
    w.afterRun(session, live as unknown as LiveContainer, { status: 'ok', ...result } as ExecutionResult);
    await turn;
  };
  return { after, retired, live, renewed: () => renewed };
}

describe('HostTaskWatch', () => {
  it('reads nothing after a run that churned no processes, nor under runc', async () => {
    const quiet = watch({ tasks: LIMIT });
    await quiet.after({ status: 'error' });
    await quiet.after({ status: 'ok' });
    expect([quiet.live.reads, quiet.retired]).toEqual([0, []]);
    const runc = watch({ tasks: LIMIT, gvisor: false });
    await runc.after({ status: 'timeout', stoppedProcesses: 40 });
    expect([runc.live.reads, runc.retired]).toEqual([0, []]);
  });

  it('keeps a container under half its host tasks, and renews one at the half', async () => {
    const under = watch({ tasks: LIMIT / 2 - 1 });
    await under.after({ status: 'timeout', stoppedProcesses: 3 });
    expect([under.live.reads, under.retired, under.renewed()]).toEqual([1, [], 0]);
    const at = watch({ tasks: LIMIT / 2 });
    await at.after({ status: 'ok', stoppedProcesses: 1 });
    expect(at.retired).toEqual([
      `the sandbox was renewed: the processes the code started left gVisor holding 704 of its ${LIMIT} host tasks`,
    ]);
    expect(at.renewed()).toBe(1);
  });

  it('renews when the engine does not say how many, and after a run that left a quarter of the pids limit, unread', async () => {
    const unread = watch({ tasks: undefined });
    await unread.after({ status: 'killed' });
    expect(unread.retired).toEqual([
      `the sandbox was renewed: the processes the code started may have left gVisor near its ${LIMIT} host tasks (the engine did not say how many)`,
    ]);
    const bomb = watch({ tasks: 10 });
    await bomb.after({ status: 'error', stoppedProcesses: PIDS / 4 });
    expect(bomb.live.reads).toBe(0);
    expect(bomb.retired).toEqual([
      'the sandbox was renewed: the code left 12 processes running, and under gVisor their host tasks stay behind',
    ]);
    const few = watch({ tasks: 10 });
    await few.after({ status: 'error', stoppedProcesses: PIDS / 4 - 1 });
    expect([few.live.reads, few.retired]).toEqual([1, []]);
  });

  it('does nothing once the session has another container', async () => {
    const w = watch({ tasks: LIMIT });
    const session = { hash: 'h1', live: undefined } as unknown as Session;
    const other = new HostTaskWatch({
      underGvisor: () => true,
      limit: LIMIT,
      pids: PIDS,
      serialize: (_s, work) => work(),
      retire: async (_s, reason) => void w.retired.push(reason),
      logger,
    });
    other.afterRun(session, w.live as unknown as LiveContainer, { status: 'timeout' } as ExecutionResult);
    await new Promise((r) => setTimeout(r, 10));
    expect([w.live.reads, w.retired]).toEqual([0, []]);
  });
});
