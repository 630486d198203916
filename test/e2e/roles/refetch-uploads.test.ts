/**
 * Failover without shared storage, with real processes: every worker has a THREADLAB_DATA_DIR of its
 * own. A thread's upload lands on the worker that answered it; that worker is SIGKILLed; the thread's
 * next message is taken over by the other worker, which holds none of the thread's files and so
 * fetches the earlier upload again from Slack (the attachment is remembered in the Redis session
 * record), says so, and answers from it, once.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMention, BOT_USER_ID, messageEvent, nextTs } from '../../fakes/fake-slack/index.js';
import { RolesCluster } from './cluster.js';
import { startedRuns, stopProcess, waitUntil, whichStarted, type ThreadlabProcess } from './processes.js';
import { answerText, pythonBlock, sendEvent, threadPosts } from './slack-thread.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`[roles refetch] ${line}\n`);

const FILE_ID = 'FREFETCH01';
/** 3 rows, 2 columns; x sums to 4042. */
const CSV = Buffer.from('x,y\n12,1\n30,2\n4000,3\n');
const NOTE = "_Fetched this thread's uploads again: `data.csv`._";

const cluster = new RolesCluster({ sharedWorkerStorage: false });
let workers: ThreadlabProcess[];

/** Whether any file named `name` lies somewhere under `dir`. */
function holds(dir: string, name: string): boolean {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).some((p) => p === name || p.endsWith(`/${name}`));
}

/** Successful downloads of the test's CSV from the fake Slack so far. */
function csvDownloads(): number {
  return cluster.slack.state.downloads.filter((d) => d.fileId === FILE_ID && d.servedBytes).length;
}

beforeAll(async () => {
  await cluster.start();
  const t0 = Date.now();
  const all = await Promise.all([
    cluster.spawn('gateway', 'gateway'),
    cluster.spawn('worker-a', 'worker'),
    cluster.spawn('worker-b', 'worker'),
  ]);
  workers = all.slice(1);
  await cluster.slack.socket.waitForConnection(30_000);
  log(`gateway and two workers (own data dirs) ready in ${Date.now() - t0} ms`);
}, 90_000);

afterAll(async () => {
  await cluster.cleanup();
}, 60_000);

describe('failover without shared storage', () => {
  it("the surviving worker fetches the thread's uploads again from Slack and answers from them, once", async () => {
    const { slack } = cluster;
    const [dirA, dirB] = workers.map((w) => cluster.dataDirOf(w.name, 'worker'));
    expect(dirA).not.toBe(dirB);

    // 1. A mention with the CSV, answered in direct mode by whichever worker takes it.
    const file = slack.addFile({ id: FILE_ID, name: 'data.csv', mimetype: 'text/csv', data: CSV });
    const root = nextTs();
    const before = await startedRuns(workers);
    await sendEvent(
      slack,
      appMention({
        text: `<@${BOT_USER_ID}> ${pythonBlock('import pandas as pd\nprint(pd.read_csv("data.csv").shape)')}`,
        ts: root,
        files: [file as never],
      }),
    );
    const first = await waitUntil(() => threadPosts(slack, root).replies[0], {
      timeoutMs: 60_000,
      what: 'the reply to the mention',
    });
    expect(answerText(first)).toContain('(3, 2)');
    const owner = whichStarted(workers, before, await startedRuns(workers));
    const survivor = workers.find((w) => w !== owner)!;
    expect(csvDownloads()).toBe(1);
    // The upload is on the owner's storage only.
    expect(holds(cluster.dataDirOf(owner.name, 'worker'), 'data.csv')).toBe(true);
    expect(holds(cluster.dataDirOf(survivor.name, 'worker'), 'data.csv')).toBe(false);

    // 2. The owner dies once it has marked the mention done; the thread's next message (routed to the owner
    // by affinity) reaches the survivor.
    await cluster.settled();
    await stopProcess(owner, 'SIGKILL');
    const survivorRunsBefore = (await startedRuns([survivor]))[0]!;
    const sentAt = Date.now();
    await sendEvent(
      slack,
      messageEvent({
        text: pythonBlock('import pandas as pd\nprint(pd.read_csv("data.csv")["x"].sum())'),
        thread_ts: root,
      }),
    );
    const second = await waitUntil(() => threadPosts(slack, root).replies.find((r) => r !== first), {
      timeoutMs: 60_000,
      what: 'the reply to the follow-up after the SIGKILL',
    });
    log(`follow-up answered ${second.atMs - sentAt} ms after it was sent (owner SIGKILLed just before)`);
    expect((await startedRuns([survivor]))[0]).toBe(survivorRunsBefore + 1);
    const answer = answerText(second);
    expect(answer).toContain(NOTE);
    expect(answer.indexOf(NOTE)).toBe(0);
    expect(answer).toContain('4042');
    expect(answer).not.toMatch(/could not be fetched again|No such file|FileNotFoundError/);

    // Fetched once per worker in all; exactly one reply for the follow-up.
    expect(csvDownloads()).toBe(2);
    expect(holds(cluster.dataDirOf(survivor.name, 'worker'), 'data.csv')).toBe(true);
    await sleep(2000);
    const replies = threadPosts(slack, root).replies;
    expect(replies).toHaveLength(2);
    expect(replies.filter((r) => answerText(r).includes('4042'))).toHaveLength(1);
    expect(csvDownloads()).toBe(2);
  });
});
