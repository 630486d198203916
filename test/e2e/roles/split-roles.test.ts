/**
 * The split roles with real processes: one `threadlab start --role gateway` holding the Slack (Socket
 * Mode) and Discord connections, two `--role worker` processes running code in Docker, all meeting in
 * a private Redis. The tests run in order and share the processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeReply } from '../../fakes/fake-openai-server.js';
import {
  appMention,
  BOT_USER_ID,
  buttonPress,
  CHANNEL_ID,
  messageEvent,
  nextTs,
  TEAM_ID,
} from '../../fakes/fake-slack/index.js';
import { STOP_ACTION_ID } from '../../../adapters/slack/index.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { payloads } from '../../fakes/fake-discord/index.js';
import { RolesCluster } from './cluster.js';
import { containersCreatedBy, sandboxContainers } from './containers.js';
import { fetchMetrics, metricValue, stopProcess, waitUntil, type ThreadlabProcess } from './processes.js';
import { postText, pythonBlock, sendEvent, threadPosts } from './slack-thread.js';

const say = (content: string): FakeReply => ({ kind: 'message', content });
const runCode = (code: string): FakeReply => ({
  kind: 'message',
  toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ language: 'python', code }) }],
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`[roles e2e] ${line}\n`);

const cluster = new RolesCluster();
let gateway: ThreadlabProcess;
let workers: ThreadlabProcess[];
/** The worker that survives the failover test. */
let survivor: ThreadlabProcess;

/** Queue waits observed per worker: counts the first attempts each one started. */
async function startedCounts(): Promise<number[]> {
  return Promise.all(
    workers.map(async (w) =>
      w.isRunning() ? (metricValue(await fetchMetrics(w), 'threadlab_queue_wait_seconds_count') ?? 0) : -1,
    ),
  );
}

beforeAll(async () => {
  await cluster.start();
  const t0 = Date.now();
  [gateway, ...workers] = await Promise.all([
    cluster.spawn('gateway', 'gateway'),
    cluster.spawn('worker-1', 'worker'),
    cluster.spawn('worker-2', 'worker'),
  ]);
  await cluster.slack.socket.waitForConnection(30_000);
  await cluster.discord.gateway.whenIdentified();
  log(`gateway and two workers ready in ${Date.now() - t0} ms`);
}, 120_000);

afterAll(async () => {
  await cluster.cleanup();
}, 60_000);

describe('split roles: gateway and workers as separate processes over Redis', () => {
  it('a Slack mention reaches the gateway; a worker runs it in Docker and posts progress and one reply', async () => {
    const { slack, llm } = cluster;
    llm.push(runCode('print(6 * 7)'), say('Six times seven is 42.'));
    const mention = appMention({ text: `<@${BOT_USER_ID}> what is six times seven?` });
    const ts = String(mention.ts);
    const sentAt = Date.now();
    await sendEvent(slack, mention);

    const reply = await waitUntil(() => threadPosts(slack, ts).replies[0], { timeoutMs: 60_000, what: 'the reply' });
    log(`mention → reply in ${Date.now() - sentAt} ms`);
    expect(postText(reply)).toContain('Six times seven is 42.');
    expect(reply.args.channel).toBe(CHANNEL_ID);
    // the code ran for real: the model was shown the sandbox's output
    const toolResults = JSON.stringify(llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool'));
    expect(toolResults).toContain('42');
    // a status with a Stop button was shown in the thread, and removed once the answer was posted
    const { progress } = threadPosts(slack, ts);
    expect(progress.length).toBe(1);
    await waitUntil(() => slack.state.messages.find((m) => m.thread_ts === ts && m.deleted), {
      timeoutMs: 10_000,
      what: 'the status message to be deleted',
    });
    await sleep(1000);
    expect(threadPosts(slack, ts).replies).toHaveLength(1);

    // Only the gateway is connected to Slack; it ran no job and never created a sandbox container.
    expect(slack.socket.connections).toBe(1);
    expect(await containersCreatedBy(gateway.pid, cluster.startedAtMs)).toEqual([]);
    const workerContainers = await sandboxContainers(workers.map((w) => w.pid));
    expect(new Set(workerContainers.map((c) => c.pid))).toEqual(new Set(workers.map((w) => w.pid)));
    // the event-log check does see creations (here: the workers' warm pools and the session)
    expect((await containersCreatedBy(workers[0]!.pid, cluster.startedAtMs)).length).toBeGreaterThan(0);
    const gatewayMetrics = await fetchMetrics(gateway);
    expect(metricValue(gatewayMetrics, 'threadlab_job_duration_seconds_count') ?? 0).toBe(0);
    const ran = await Promise.all(
      workers.map(async (w) => metricValue(await fetchMetrics(w), 'threadlab_job_duration_seconds_count') ?? 0),
    );
    expect(ran.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('SIGKILL mid-run: the other worker finishes it once, says the variables were reset, files survive', async () => {
    const { slack } = cluster;
    const root = nextTs();
    const before = await startedCounts();
    await sendEvent(
      slack,
      appMention({
        ts: root,
        text: `<@${BOT_USER_ID}> ${pythonBlock("open('/mnt/data/keep.txt', 'w').write('kept')\nprint('saved')")}`,
      }),
    );
    await waitUntil(() => threadPosts(slack, root).replies.find((r) => postText(r).includes('saved')), {
      timeoutMs: 60_000,
      what: 'the first run of the thread',
    });
    const afterFirst = await startedCounts();
    const ownerIndex = afterFirst.findIndex((n, i) => n > before[i]!);
    expect(ownerIndex).toBeGreaterThanOrEqual(0);
    const victim = workers[ownerIndex]!;
    survivor = workers[1 - ownerIndex]!;

    // The thread's next message goes to the worker that holds its container (affinity).
    const long = pythonBlock('import time; time.sleep(20); print("done")');
    await sendEvent(slack, messageEvent({ text: long, thread_ts: root }));
    await waitUntil(
      () => threadPosts(slack, root).progress.find((p) => postText(p).includes('time.sleep(20)')),
      { timeoutMs: 30_000, what: 'the long run to show its status' },
    );
    expect(await startedCounts()).toEqual(afterFirst.map((n, i) => (i === ownerIndex ? n + 1 : n)));
    await sleep(1500);
    const victimContainers = await sandboxContainers([victim.pid]);
    expect(victimContainers.length).toBeGreaterThan(0);
    const progressBefore = threadPosts(slack, root).progress.length;
    const killedAt = Date.now();
    await stopProcess(victim, 'SIGKILL');

    const resumed = await waitUntil(() => threadPosts(slack, root).progress[progressBefore], {
      timeoutMs: 60_000,
      what: 'the run to restart on the other worker',
    });
    const done = await waitUntil(
      () => threadPosts(slack, root).replies.find((r) => postText(r).includes('done')),
      { timeoutMs: 60_000, what: 'the final reply after failover' },
    );
    log(
      `failover: restarted ${resumed.atMs - killedAt} ms after SIGKILL; final reply ${done.atMs - killedAt} ms after SIGKILL`,
    );
    expect(postText(done)).toContain('variables were reset');
    expect(resumed.atMs - killedAt).toBeLessThan(30_000);

    // Files written on the dead worker come back from the shared data dir on the survivor.
    await sendEvent(slack, messageEvent({ text: pythonBlock("print(open('/mnt/data/keep.txt').read())"), thread_ts: root }));
    await waitUntil(() => threadPosts(slack, root).replies.find((r) => postText(r).includes('kept')), {
      timeoutMs: 60_000,
      what: 'the follow-up reading the file',
    });
    await sleep(1500);
    const replies = threadPosts(slack, root).replies;
    expect(replies.filter((r) => postText(r).includes('done'))).toHaveLength(1);
    expect(replies).toHaveLength(3);

    // The dead worker's containers outlive it: nothing sweeps while the survivor runs. The next
    // process that starts on this host removes them (orphan sweep at sandbox start).
    const leftBehind = await sandboxContainers([victim.pid]);
    log(`after failover, ${leftBehind.length} container(s) of the killed worker remain: ${leftBehind.map((c) => c.state).join(', ')}`);
    await cluster.spawn('worker-3', 'worker');
    expect(await sandboxContainers([victim.pid])).toEqual([]);
  });

  it('a worker serves /healthz and /metrics with job durations and the queue depth', async () => {
    const health = await fetch(`${survivor.opsUrl}/healthz`);
    expect(health.status).toBe(200);
    const report = (await health.json()) as { ok: boolean; checks: Record<string, { ok: boolean }> };
    expect(report).toMatchObject({ ok: true, checks: { docker: { ok: true }, redis: { ok: true } } });
    const metrics = await fetchMetrics(survivor);
    expect(metricValue(metrics, 'threadlab_job_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(metrics, 'threadlab_job_duration_seconds_sum', { outcome: 'ok' })).toBeGreaterThan(15);
    expect(metricValue(metrics, 'threadlab_queue_depth')).toBe(0);
    expect(metrics).toContain('role="worker"');

    const gatewayHealth = (await (await fetch(`${gateway.opsUrl}/healthz`)).json()) as { checks: Record<string, unknown> };
    expect(Object.keys(gatewayHealth.checks)).toEqual(['redis']);
  });

  it('Discord: a worker answers a mention and a slash command through REST only', async () => {
    const { discord } = cluster;
    const question = discord.userMessage({
      channelId: discord.textChannelId,
      content: `<@${discord.bot.id}> ${pythonBlock('print(6 * 7)')}`,
      mentionBot: true,
    });
    const threadId = String(question.id);
    await discord.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${discord.textChannelId}/messages/${threadId}/threads`,
    );
    const answer = await discord.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        !(r.json?.components?.length > 0) &&
        String(r.json?.content).includes('42'),
      60_000,
    );
    expect(answer.status).toBe(200);
    const status = discord.requests.find(
      (r) => r.method === 'POST' && r.path === `/channels/${threadId}/messages` && r.json?.components?.length > 0,
    );
    expect(status).toBeDefined();
    await discord.waitForRequest((r) => r.method === 'DELETE' && r.path.startsWith(`/channels/${threadId}/messages/`));

    // A slash command: deferred by the gateway, answered by a worker through the interaction webhook.
    const interaction = discord.interaction(
      payloads.slashCommand({
        applicationId: discord.applicationId,
        guildId: discord.guildId,
        channel: { id: discord.textChannelId, type: 0 },
        user: discord.human,
        name: 'run',
        options: [
          { name: 'code', type: 3, value: 'print(7 * 6)' },
          { name: 'language', type: 3, value: 'python' },
        ],
      }),
    );
    const token = String(interaction.token);
    const done = await discord.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path === `/webhooks/${discord.applicationId}/${token}/messages/@original` &&
        String(r.json?.content).includes('42'),
      60_000,
    );
    expect(done.status).toBe(200);
    expect(done.headers.authorization).toBeUndefined();

    // Only the gateway ever opened a Discord gateway connection (one IDENTIFY).
    const identifies = discord.gateway.frames.filter((f) => f.direction === 'in' && f.payload.op === 2);
    expect(identifies).toHaveLength(1);
  });

  it('the Stop button, pressed at the gateway, stops the run on the worker', async () => {
    const { slack } = cluster;
    const mention = appMention({
      text: `<@${BOT_USER_ID}> ${pythonBlock('import time\nprint("sleeping", flush=True)\ntime.sleep(30)\nprint("woke")')}`,
    });
    const ts = String(mention.ts);
    await sendEvent(slack, mention);
    const status = await waitUntil(
      () => slack.state.messages.find((m) => m.thread_ts === ts && JSON.stringify(m.blocks).includes('sleeping')),
      { timeoutMs: 30_000, what: 'the status showing the run’s output' },
    );
    const key = threadKey({ platform: 'slack', workspace: TEAM_ID, channel: CHANNEL_ID, thread: ts });
    const pressedAt = Date.now();
    await slack.socket.send(
      'interactive',
      buttonPress({ actionId: STOP_ACTION_ID, value: key, messageTs: status.ts, threadTs: ts, responseUrl: slack.responseUrl() }),
    );
    const reply = await waitUntil(() => threadPosts(slack, ts).replies[0], { timeoutMs: 20_000, what: 'the reply after Stop' });
    log(`Stop pressed at the gateway → reply from the worker in ${reply.atMs - pressedAt} ms`);
    expect(postText(reply)).toContain('Stopped');
    expect(postText(reply)).not.toContain('woke');
    await sleep(500);
    expect(threadPosts(slack, ts).replies).toHaveLength(1);
  });

  it('SIGTERM mid-run: the run finishes, then gateway and workers exit 0 in time and leave no container', async () => {
    const { slack } = cluster;
    const running = cluster.processes.filter((p) => p.isRunning());
    expect(running.map((p) => p.role).sort()).toEqual(['gateway', 'worker', 'worker']);
    const mention = appMention({
      text: `<@${BOT_USER_ID}> ${pythonBlock('import time\nprint("working", flush=True)\ntime.sleep(3)\nprint("finished")')}`,
    });
    const ts = String(mention.ts);
    await sendEvent(slack, mention);
    await waitUntil(
      () => slack.state.messages.find((m) => m.thread_ts === ts && JSON.stringify(m.blocks).includes('working')),
      { timeoutMs: 30_000, what: 'the run to be under way' },
    );
    const sentAt = Date.now();
    for (const p of running) p.child.kill('SIGTERM');
    const exits = await Promise.all(running.map((p) => p.exited));
    const timings = running.map((p, i) => `${p.name} ${exits[i]!.atMs - sentAt} ms (code ${exits[i]!.code})`);
    log(`SIGTERM → exit: ${timings.join(', ')}`);
    for (const [i, exit] of exits.entries()) {
      const name = running[i]!.name;
      expect({ name, code: exit.code, signal: exit.signal }).toEqual({ name, code: 0, signal: null });
      expect(exit.atMs - sentAt).toBeLessThan(cluster.shutdownTimeoutMs);
    }
    // the run in flight was finished and answered before its worker left
    const replies = threadPosts(slack, ts).replies;
    expect(replies).toHaveLength(1);
    expect(postText(replies[0]!)).toContain('finished');
    expect(await sandboxContainers(cluster.pids)).toEqual([]);
  });
});
