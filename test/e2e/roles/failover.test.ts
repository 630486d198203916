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
 *
 * What is asserted is what the test controls or can observe as events, never how fast a loaded machine
 * is: the order of the posts and of the exit, counts of status posts and answers once the queue holds
 * nothing more, the worker's own report that its shutdown deadline came, and the configured shutdown
 * timeout as a lower bound. Each wait for the product is a safety net ({@link WAIT_MS}) that only ends a
 * hung test; a clean-clone run at load ~12 took 14.3 s for an exit a 13 s bound expected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMention, BOT_USER_ID, messageEvent, nextTs, type FakeSlackCall } from '../../fakes/fake-slack/index.js';
import { RolesCluster } from './cluster.js';
import { sandboxContainers } from './containers.js';
import {
  SHUTDOWN_DEADLINE_CAME,
  startedRuns,
  stopProcess,
  waitUntil,
  whichStarted,
  type ThreadlabProcess,
} from './processes.js';
import { answerText, postText, pythonBlock, sendEvent, statusShowing, threadPosts } from './slack-thread.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * How long any wait for the product may take before the test fails as hung, in ms: four times the slowest
 * step's quiet-machine time (a re-delivered 20 s run answered ~33 s after the kill). Not an assertion.
 */
const WAIT_MS = 120_000;
/** Room for a test's waits (several {@link WAIT_MS} only when something hangs), in ms. */
const TEST_MS = 300_000;
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
    timeoutMs: WAIT_MS,
    what: 'the run to restart on another worker',
  });
  const reply = await waitUntil(
    () => threadPosts(slack, o.root).replies.find((r) => answerText(r).includes(o.expect)),
    { timeoutMs: WAIT_MS, what: 'the final reply after failover' },
  );
  // Restarted once, after the kill, and answered by that restart: one more status than before, none after.
  expect(killedAt).toBeLessThan(restarted.atMs);
  expect(restarted.atMs).toBeLessThanOrEqual(reply.atMs);
  await cluster.settled(WAIT_MS);
  expect(threadPosts(slack, o.root).progress).toHaveLength(statusesBefore + 1);
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

describe('failover between worker processes', { timeout: TEST_MS }, () => {
  it('a thread with history: its worker dies mid-run; the other finishes once, files restored', async () => {
    const { slack } = cluster;
    const root = nextTs();
    const before = await startedRuns(workers);
    await sendEvent(slack, mention(pythonBlock("open('/mnt/data/keep.txt', 'w').write('kept')\nprint('saved')"), root));
    await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('saved')), {
      timeoutMs: WAIT_MS,
      what: 'the first run of the thread',
    });
    const owner = whichStarted(workers, before, await startedRuns(workers));

    // The next message of the thread goes to the worker holding its container (affinity).
    const code = 'import time; time.sleep(12); print("done")';
    const beforeLong = await startedRuns(workers);
    await sendEvent(slack, messageEvent({ text: pythonBlock(code), thread_ts: root }));
    await waitUntil(() => statusShowing(slack, root, 'time.sleep(12)'), {
      timeoutMs: WAIT_MS,
      what: 'the long run to show its status',
    });
    expect(whichStarted(workers, beforeLong, await startedRuns(workers))).toBe(owner);

    const { reply, restartMs, replyMs } = await killMidRun({ root, owner, expect: 'done' });
    log(`affinity path: restarted ${restartMs} ms after SIGKILL, answered ${replyMs} ms after`);
    expect(postText(reply)).toContain('variables were reset');

    // Files written on the dead worker come back on the survivor from the shared data dir.
    await sendEvent(
      slack,
      messageEvent({ text: pythonBlock("print(open('/mnt/data/keep.txt').read())"), thread_ts: root }),
    );
    await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('kept')), {
      timeoutMs: WAIT_MS,
      what: 'the follow-up reading the file',
    });
    await cluster.settled(WAIT_MS);
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
      timeoutMs: WAIT_MS,
      what: 'the run to show its status',
    });
    const owner = whichStarted(workers, before, await startedRuns(workers));

    const { reply, restartMs, replyMs } = await killMidRun({ root, owner, expect: 'done' });
    log(`shared-queue path: restarted ${restartMs} ms after SIGKILL, answered ${replyMs} ms after`);
    expect(postText(reply)).toContain('variables were reset');
    expect(threadPosts(slack, root).replies).toHaveLength(1);
    await replaceAndSweep(owner, 'worker-4');
  });

  it('SIGTERM (rolling restart) during a thread’s run: it finishes on its worker, once; no peer takes it', async () => {
    const { slack } = cluster;
    const root = nextTs();
    const before = await startedRuns(workers);
    await sendEvent(slack, mention(pythonBlock("x = 41\nprint('warm')"), root));
    await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('warm')), {
      timeoutMs: WAIT_MS,
      what: 'the first run of the thread',
    });
    const owner = whichStarted(workers, before, await startedRuns(workers));
    // Affinity sends the next message to the same worker, which is asked to stop once the run's output shows
    // (the word is built at run time, so the code quoted in the status cannot match): at most 5 s of the run
    // are left, against the 8 s shutdown timeout.
    const code = 'import time\nprint("under" + "way", flush=True)\ntime.sleep(5)\nprint("done", x + 1)';
    await sendEvent(slack, messageEvent({ text: pythonBlock(code), thread_ts: root }));
    await waitUntil(() => statusShowing(slack, root, 'underway'), {
      timeoutMs: WAIT_MS,
      what: 'the run to be under way',
    });
    const statuses = threadPosts(slack, root).progress.length;
    const sentAt = Date.now();
    owner.child.kill('SIGTERM');
    const exit = await owner.exited;
    workers = workers.filter((w) => w !== owner);
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    const reply = await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('done')), {
      timeoutMs: WAIT_MS,
      what: 'the answer',
    });
    log(
      `SIGTERM during a 5 s affinity run → answered ${reply.atMs - sentAt} ms after, exit ${exit.atMs - sentAt} ms (code ${exit.code})`,
    );
    // The run was under way at SIGTERM and its own worker answered before it left, with the thread's variables.
    expect(sentAt).toBeLessThan(reply.atMs);
    expect(reply.atMs).toBeLessThanOrEqual(exit.atMs);
    expect(owner.output()).not.toContain(SHUTDOWN_DEADLINE_CAME);
    expect(answerText(reply)).toContain('done 42');
    expect(postText(reply)).not.toContain('variables were reset');
    // Nothing is left to run, and no peer started it again (a restart posts a status of its own).
    await cluster.settled(WAIT_MS);
    expect(threadPosts(slack, root).progress).toHaveLength(statuses);
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
      timeoutMs: WAIT_MS,
      what: 'the run to show its status',
    });
    const owner = whichStarted(workers, before, await startedRuns(workers));
    await sleep(1000);
    const statuses = threadPosts(slack, root).progress.length;
    const sentAt = Date.now();
    owner.child.kill('SIGTERM');
    const exit = await owner.exited;
    workers = workers.filter((w) => w !== owner);
    log(
      `SIGTERM with a 15 s run → exit ${exit.atMs - sentAt} ms (timeout ${cluster.shutdownTimeoutMs} ms, code ${exit.code})`,
    );
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    // It waited for the run up to its configured timeout (a lower bound no load can break), then said so,
    // interrupted it, handed it back and removed its containers, without answering.
    expect(exit.atMs - sentAt).toBeGreaterThanOrEqual(cluster.shutdownTimeoutMs);
    expect(owner.output()).toContain(SHUTDOWN_DEADLINE_CAME);
    expect(await sandboxContainers([owner.pid])).toEqual([]);
    expect(threadPosts(slack, root).replies).toHaveLength(0);

    const restarted = await waitUntil(() => threadPosts(slack, root).progress[statuses], {
      timeoutMs: WAIT_MS,
      what: 'the handed-back run to start on the other worker',
    });
    const reply = await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('done')), {
      timeoutMs: WAIT_MS,
      what: 'the handed-back run to be answered',
    });
    log(`handed back: started again ${restarted.atMs - sentAt} ms, answered ${reply.atMs - sentAt} ms after SIGTERM`);
    // The peer took the run only once the draining worker's deadline had come, and answered from that start.
    expect(restarted.atMs - sentAt).toBeGreaterThanOrEqual(cluster.shutdownTimeoutMs);
    expect(restarted.atMs).toBeLessThanOrEqual(reply.atMs);
    expect(postText(reply)).toContain('variables were reset');
    await cluster.settled(WAIT_MS);
    expect(threadPosts(slack, root).progress).toHaveLength(statuses + 1);
    expect(threadPosts(slack, root).replies).toHaveLength(1);
  });
});
