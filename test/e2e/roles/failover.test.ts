/**
 * Failover with real processes: a worker is SIGKILLed mid-run and the other worker finishes the run,
 * once, telling the user the variables were reset. Two ways a run reaches another worker:
 * - a thread with history is routed to its worker's own queue (affinity); the survivors notice the
 *   dead worker's expired heartbeat and move its queue to the shared one;
 * - a fresh thread runs from the shared queue; BullMQ's stalled-job check re-delivers it.
 * The killed worker's containers stay until the next process starts on this host (orphan sweep at
 * sandbox start), which is asserted by starting a replacement worker.
 * Then SIGTERM as in a rolling restart: a run shorter than THREADLAB_SHUTDOWN_TIMEOUT_MS finishes on its
 * worker (peers must not take a draining worker for dead), a longer one is handed back and finished
 * by a peer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMention, BOT_USER_ID, messageEvent, nextTs, type FakeSlackCall } from '../../fakes/fake-slack/index.js';
import { RolesCluster } from './cluster.js';
import { sandboxContainers } from './containers.js';
import { startedRuns, stopProcess, waitUntil, whichStarted, type ThreadlabProcess } from './processes.js';
import { answerText, postText, pythonBlock, sendEvent, statusShowing, threadPosts } from './slack-thread.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`[roles failover] ${line}\n`);
const mention = (text: string, ts?: string) => appMention({ text: `<@${BOT_USER_ID}> ${text}`, ...(ts ? { ts } : {}) });

const cluster = new RolesCluster();
/** The live workers, in start order. */
let workers: ThreadlabProcess[];

beforeAll(async () => {
  await cluster.start();
  const all = await Promise.all([
    cluster.spawn('gateway', 'gateway'),
    cluster.spawn('worker-1', 'worker'),
    cluster.spawn('worker-2', 'worker'),
  ]);
  workers = all.slice(1);
  await cluster.slack.socket.waitForConnection(30_000);
}, 120_000);

afterAll(async () => {
  await cluster.cleanup();
}, 60_000);

/**
 * With the thread's run under way on `owner`, kills `owner` with SIGKILL, then waits for the run to
 * restart on another worker and for a reply whose answer contains `expect`.
 */
async function killMidRun(o: {
  root: string;
  owner: ThreadlabProcess;
  expect: string;
}): Promise<{ reply: FakeSlackCall; restartMs: number; replyMs: number }> {
  const { slack } = cluster;
  await sleep(1500);
  expect((await sandboxContainers([o.owner.pid])).length).toBeGreaterThan(0);
  const statusesBefore = threadPosts(slack, o.root).progress.length;
  const killedAt = Date.now();
  await stopProcess(o.owner, 'SIGKILL');
  workers = workers.filter((w) => w !== o.owner);
  const restarted = await waitUntil(() => threadPosts(slack, o.root).progress[statusesBefore], {
    timeoutMs: 45_000,
    what: 'the run to restart on another worker',
  });
  const reply = await waitUntil(
    () => threadPosts(slack, o.root).replies.find((r) => answerText(r).includes(o.expect)),
    {
      timeoutMs: 60_000,
      what: 'the final reply after failover',
    },
  );
  return { reply, restartMs: restarted.atMs - killedAt, replyMs: reply.atMs - killedAt };
}

/**
 * Starts a replacement worker and checks that its start removed the killed worker's containers and
 * left those of the live worker alone.
 */
async function replaceAndSweep(dead: ThreadlabProcess, name: string): Promise<void> {
  const left = await sandboxContainers([dead.pid]);
  log(
    `${left.length} container(s) of the killed ${dead.name} remain before a restart (${left.map((c) => c.state).join(', ')})`,
  );
  const siblings = (await sandboxContainers(workers.map((w) => w.pid))).map((c) => c.id).sort();
  expect(siblings.length).toBeGreaterThan(0);
  workers.push(await cluster.spawn(name, 'worker'));
  expect(await sandboxContainers([dead.pid])).toEqual([]);
  const kept = (await sandboxContainers(workers.slice(0, -1).map((w) => w.pid))).map((c) => c.id);
  for (const id of siblings) expect(kept).toContain(id);
}

describe('failover between worker processes', () => {
  it('a thread with history: its worker dies mid-run; the other finishes once, files restored', async () => {
    const { slack } = cluster;
    const root = nextTs();
    const before = await startedRuns(workers);
    await sendEvent(slack, mention(pythonBlock("open('/mnt/data/keep.txt', 'w').write('kept')\nprint('saved')"), root));
    await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('saved')), {
      timeoutMs: 60_000,
      what: 'the first run of the thread',
    });
    const owner = whichStarted(workers, before, await startedRuns(workers));

    // The next message of the thread goes to the worker holding its container (affinity).
    const code = 'import time; time.sleep(12); print("done")';
    const beforeLong = await startedRuns(workers);
    await sendEvent(slack, messageEvent({ text: pythonBlock(code), thread_ts: root }));
    await waitUntil(() => statusShowing(slack, root, 'time.sleep(12)'), {
      timeoutMs: 30_000,
      what: 'the long run to show its status',
    });
    expect(whichStarted(workers, beforeLong, await startedRuns(workers))).toBe(owner);

    const { reply, restartMs, replyMs } = await killMidRun({ root, owner, expect: 'done' });
    log(`affinity path: restarted ${restartMs} ms after SIGKILL, answered ${replyMs} ms after`);
    expect(restartMs).toBeLessThan(30_000);
    expect(postText(reply)).toContain('variables were reset');

    // Files written on the dead worker come back on the survivor from the shared data dir.
    await sendEvent(
      slack,
      messageEvent({ text: pythonBlock("print(open('/mnt/data/keep.txt').read())"), thread_ts: root }),
    );
    await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('kept')), {
      timeoutMs: 60_000,
      what: 'the follow-up reading the file',
    });
    await sleep(1500);
    const replies = threadPosts(slack, root).replies;
    expect(replies.filter((r) => answerText(r).includes('done'))).toHaveLength(1);
    expect(replies).toHaveLength(3);
    await replaceAndSweep(owner, 'worker-3');
  });

  it('a fresh thread: ```python time.sleep(20)``` killed mid-run on worker A is finished once by worker B', async () => {
    const { slack } = cluster;
    const root = nextTs();
    const code = 'import time; time.sleep(20); print("done")';
    const before = await startedRuns(workers);
    await sendEvent(slack, mention(pythonBlock(code), root));
    await waitUntil(() => statusShowing(slack, root, 'time.sleep(20)'), {
      timeoutMs: 30_000,
      what: 'the run to show its status',
    });
    const owner = whichStarted(workers, before, await startedRuns(workers));

    const { reply, restartMs, replyMs } = await killMidRun({ root, owner, expect: 'done' });
    log(`shared-queue path: restarted ${restartMs} ms after SIGKILL, answered ${replyMs} ms after`);
    expect(restartMs).toBeLessThan(30_000);
    expect(postText(reply)).toContain('variables were reset');
    await sleep(2000);
    expect(threadPosts(slack, root).replies).toHaveLength(1);
    await replaceAndSweep(owner, 'worker-4');
  });

  it('SIGTERM (rolling restart) during a thread’s run: it finishes on its worker, once; no peer takes it', async () => {
    const { slack } = cluster;
    const root = nextTs();
    const before = await startedRuns(workers);
    await sendEvent(slack, mention(pythonBlock("x = 41\nprint('warm')"), root));
    await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('warm')), {
      timeoutMs: 60_000,
      what: 'the first run of the thread',
    });
    const owner = whichStarted(workers, before, await startedRuns(workers));
    // Affinity sends the next message to the same worker, which is then asked to stop mid-run.
    await sendEvent(
      slack,
      messageEvent({ text: pythonBlock('import time; time.sleep(6); print("done", x + 1)'), thread_ts: root }),
    );
    await waitUntil(() => statusShowing(slack, root, 'time.sleep(6)'), {
      timeoutMs: 30_000,
      what: 'the run to show its status',
    });
    await sleep(1000);
    const sentAt = Date.now();
    owner.child.kill('SIGTERM');
    const exit = await owner.exited;
    workers = workers.filter((w) => w !== owner);
    log(`SIGTERM during a 6 s affinity run → exit ${exit.atMs - sentAt} ms (code ${exit.code})`);
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    // The 6 s run ends well before the shutdown timeout; the margin absorbs a loaded machine's exit.
    expect(exit.atMs - sentAt).toBeLessThan(cluster.shutdownTimeoutMs + 5000);
    const reply = await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('done')), {
      timeoutMs: 30_000,
      what: 'the answer',
    });
    expect(answerText(reply)).toContain('done 42');
    expect(postText(reply)).not.toContain('variables were reset');
    await sleep(3000);
    expect(threadPosts(slack, root).replies.filter((r) => answerText(r).includes('done'))).toHaveLength(1);
    expect(threadPosts(slack, root).replies).toHaveLength(2);
    workers.push(await cluster.spawn('worker-5', 'worker'));
  });

  it('SIGTERM with a run longer than the shutdown timeout: handed back, finished by the other worker', async () => {
    const { slack } = cluster;
    const root = nextTs();
    const before = await startedRuns(workers);
    await sendEvent(slack, mention(pythonBlock('import time; time.sleep(15); print("done")'), root));
    await waitUntil(() => statusShowing(slack, root, 'time.sleep(15)'), {
      timeoutMs: 30_000,
      what: 'the run to show its status',
    });
    const owner = whichStarted(workers, before, await startedRuns(workers));
    await sleep(1000);
    const sentAt = Date.now();
    owner.child.kill('SIGTERM');
    const exit = await owner.exited;
    log(
      `SIGTERM with a 15 s run → exit ${exit.atMs - sentAt} ms (timeout ${cluster.shutdownTimeoutMs} ms, code ${exit.code})`,
    );
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    // It waits for the run up to the timeout, then interrupts it and hands it back (BullMQ abort grace 5 s).
    expect(exit.atMs - sentAt).toBeGreaterThanOrEqual(cluster.shutdownTimeoutMs);
    // Interrupt, hand-back and container removal follow the deadline; a loaded machine takes longer.
    expect(exit.atMs - sentAt).toBeLessThan(cluster.shutdownTimeoutMs + 15_000);
    expect(await sandboxContainers([owner.pid])).toEqual([]);
    expect(threadPosts(slack, root).replies).toHaveLength(0);

    const reply = await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('done')), {
      timeoutMs: 45_000,
      what: 'the handed-back run to be answered',
    });
    log(`handed back: answered ${reply.atMs - sentAt} ms after SIGTERM`);
    expect(postText(reply)).toContain('variables were reset');
    await sleep(1500);
    expect(threadPosts(slack, root).replies).toHaveLength(1);
  });
});
