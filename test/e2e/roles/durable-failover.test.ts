/**
 * Durable threads across a worker's death: with THREADLAB_DATA_DIR shared by the workers (the cluster's default),
 * a thread's variables saved after its last completed run on worker A are loaded by worker B once A is SIGKILLed
 * (nothing of A runs again: only the save that already landed counts), and the answer says when they were saved.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadKey } from '../../../src/domain/thread-key.js';
import { threadHash } from '../../../src/domain/thread-key.js';
import { appMention, BOT_USER_ID, CHANNEL_ID, messageEvent, nextTs, TEAM_ID } from '../../fakes/fake-slack/index.js';
import { RolesCluster } from './cluster.js';
import { startedRuns, stopProcess, waitUntil, whichStarted, type ThreadlabProcess } from './processes.js';
import { answerText, postText, pythonBlock, sendEvent, threadPosts } from './slack-thread.js';

const log = (line: string) => process.stderr.write(`[durable failover] ${line}\n`);
// Saved a moment after each run, so the test need not wait the default second for it.
const WORKER_ENV = { THREADLAB_STATE_SAVE_DELAY_MS: '100' };

const cluster = new RolesCluster();
let workers: ThreadlabProcess[];

beforeAll(async () => {
  expect(cluster.sharedWorkerStorage).toBe(true);
  workers = await cluster.startGatewayAndWorkers(['worker-1', 'worker-2'], WORKER_ENV);
}, 120_000);

afterAll(async () => {
  await cluster.cleanup();
}, 60_000);

/** The description of the thread's saved variables in the workers' shared data dir, once a save has landed. */
function savedState(rootTs: string): Promise<{ savedAt: string; variables: number }> {
  const key = threadKey({ platform: 'slack', workspace: TEAM_ID, channel: CHANNEL_ID, thread: rootTs });
  const file = join(cluster.workerDataDir, 'sandbox-files', threadHash(key), '.threadlab', 'state', 'state.json');
  return waitUntil(
    () => {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as { savedAt: string; variables: number };
      } catch {
        return undefined; // not saved yet
      }
    },
    { timeoutMs: 20_000, what: `the thread's saved state at ${file}` },
  );
}

describe('SIGKILL failover with shared storage', () => {
  it('the next message in the thread is answered by the other worker with the variable, saying when it was saved', async () => {
    const { slack } = cluster;
    const root = nextTs();
    const before = await startedRuns(workers);
    await sendEvent(slack, appMention({ text: `<@${BOT_USER_ID}> ${pythonBlock('x = 41\nprint("set")')}`, ts: root }));
    await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('set')), {
      timeoutMs: 60_000,
      what: 'the first run of the thread',
    });
    const owner = whichStarted(workers, before, await startedRuns(workers));
    const answeredAt = Date.now();
    const saved = await savedState(root);
    log(`state saved ${Date.now() - answeredAt} ms after the answer was seen (${saved.variables} variable)`);
    expect(saved.variables).toBe(1);

    // Killed once the first run is marked done (else the survivor runs it again before the follow-up).
    await cluster.settled();
    const killedAt = Date.now();
    await stopProcess(owner, 'SIGKILL');
    const survivors = workers.filter((w) => w !== owner);
    const beforeNext = await startedRuns(survivors);
    await sendEvent(slack, messageEvent({ text: pythonBlock('print(x + 1)'), thread_ts: root }));
    const reply = await waitUntil(() => threadPosts(slack, root).replies.find((r) => answerText(r).includes('42')), {
      timeoutMs: 60_000,
      what: 'the answer from the surviving worker',
    });
    log(`answered by the survivor ${reply.atMs - killedAt} ms after SIGKILL`);
    // The run was started by the survivor (whichStarted fails unless exactly one worker took it).
    expect(whichStarted(survivors, beforeNext, await startedRuns(survivors))).toBe(survivors[0]);
    // The minute the state was saved on the dead worker, as the notice prints it.
    const when = `${saved.savedAt.slice(0, 16).replace('T', ' ')} UTC`;
    expect(postText(reply)).toContain(
      `Restored 1 variable saved at ${when} (the bot restarted or another worker took the thread over)`,
    );
    expect(postText(reply)).not.toContain('variables were reset');
    expect(threadPosts(slack, root).replies).toHaveLength(2);
  });
});
