/**
 * The split roles with real processes: one `threadlab start --role gateway` holding the Slack (Socket
 * Mode) and Discord connections, two `--role worker` processes running code in Docker, all meeting in
 * a private Redis. The tests run in order and share the processes. Failover is in failover.test.ts,
 * Discord's worker-side answers in discord-worker.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { appMention, BOT_USER_ID, buttonPress, CHANNEL_ID, TEAM_ID } from '../../fakes/fake-slack/index.js';
import { STOP_ACTION_ID } from '../../../adapters/slack/index.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { RolesCluster } from './cluster.js';
import { containersCreatedBy, sandboxContainers } from './containers.js';
import { fetchMetrics, metricValue, SHUTDOWN_DEADLINE_CAME, waitUntil, type ThreadlabProcess } from './processes.js';
import { answerText, postText, pythonBlock, sendEvent, statusShowing, threadPosts } from './slack-thread.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The shutdown timeout of the processes that stop idle, in ms: an exit that waited it out is plain, whatever the load. */
const IDLE_SHUTDOWN_TIMEOUT_MS = 60_000;
const IDLE_SHUTDOWN_ENV = { THREADLAB_SHUTDOWN_TIMEOUT_MS: String(IDLE_SHUTDOWN_TIMEOUT_MS) };
const log = (line: string) => process.stderr.write(`[roles e2e] ${line}\n`);

const cluster = new RolesCluster();
let gateway: ThreadlabProcess;
let workers: ThreadlabProcess[];
/** The worker that answered the first mention. */
let answerer: ThreadlabProcess;

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
    // The worker downloads the upload itself, with the bot token (the gateway only passes its URL on).
    const file = slack.addFile({
      id: 'FROLES01',
      name: 'factors.csv',
      mimetype: 'text/csv',
      data: Buffer.from('a,b\n127,331\n'),
    });
    llm.push(
      fakeRunCode(
        "import csv\nrow = next(csv.DictReader(open('/mnt/data/factors.csv')))\nprint(int(row['a']) * int(row['b']))",
      ),
      fakeSay('The product is 42037.'),
    );
    const mention = appMention({ text: `<@${BOT_USER_ID}> multiply the factors`, files: [file as never] });
    const ts = String(mention.ts);
    const sentAt = Date.now();
    await sendEvent(slack, mention);

    const reply = await waitUntil(() => threadPosts(slack, ts).replies[0], { timeoutMs: 60_000, what: 'the reply' });
    log(`mention → reply in ${Date.now() - sentAt} ms`);
    expect(postText(reply)).toContain('The product is 42037.');
    expect(reply.args.channel).toBe(CHANNEL_ID);
    // the code ran for real: the model was shown the sandbox's output
    const toolResults = JSON.stringify(llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool'));
    expect(toolResults).toContain('42037');
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
    answerer = workers[ran.indexOf(1)]!;
  });

  it('a worker serves /healthz and /metrics with job durations and the queue depth', async () => {
    const health = await fetch(`${answerer.opsUrl}/healthz`);
    expect(health.status).toBe(200);
    const report = (await health.json()) as { ok: boolean; checks: Record<string, { ok: boolean }> };
    expect(report).toMatchObject({ ok: true, checks: { docker: { ok: true }, redis: { ok: true } } });
    const metrics = await fetchMetrics(answerer);
    expect(metricValue(metrics, 'threadlab_job_duration_seconds_count', { outcome: 'ok' })).toBe(1);
    expect(metricValue(metrics, 'threadlab_job_duration_seconds_sum', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(metricValue(metrics, 'threadlab_queue_wait_seconds_count')).toBe(1);
    expect(metricValue(metrics, 'threadlab_queue_depth')).toBe(0);
    expect(metrics).toContain('role="worker"');

    const gatewayHealth = (await (await fetch(`${gateway.opsUrl}/healthz`)).json()) as {
      checks: Record<string, unknown>;
    };
    expect(Object.keys(gatewayHealth.checks)).toEqual(['redis']);
  });

  it('the Stop button, pressed at the gateway, stops the run on the worker', async () => {
    const { slack } = cluster;
    const mention = appMention({
      // The word is built at run time, so the code quoted in the status cannot match the wait for its output.
      text: `<@${BOT_USER_ID}> ${pythonBlock('import time\nprint("sleep" + "ing", flush=True)\ntime.sleep(30)\nprint("woke")')}`,
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
      buttonPress({
        actionId: STOP_ACTION_ID,
        value: key,
        messageTs: status.ts,
        threadTs: ts,
        responseUrl: slack.responseUrl(),
      }),
    );
    const reply = await waitUntil(() => threadPosts(slack, ts).replies[0], {
      timeoutMs: 20_000,
      what: 'the reply after Stop',
    });
    log(`Stop pressed at the gateway → reply from the worker in ${reply.atMs - pressedAt} ms`);
    expect(answerText(reply)).toContain('Stopped');
    // The code is quoted in the reply; what it printed follows "*Output*" and ends before the last print.
    const output = JSON.stringify(reply.args.blocks).split('*Output*')[1] ?? '';
    expect(output).toContain('sleeping');
    expect(output).not.toContain('woke');
    await sleep(500);
    expect(threadPosts(slack, ts).replies).toHaveLength(1);
  });

  it('a Stop pressed at the gateway by someone else is refused there, privately: the starter is read from Redis', async () => {
    const { slack } = cluster;
    const mention = appMention({
      text: `<@${BOT_USER_ID}> ${pythonBlock('import time\nprint("napping", flush=True)\ntime.sleep(30)\nprint("woke")')}`,
    });
    const ts = String(mention.ts);
    await sendEvent(slack, mention);
    const status = await waitUntil(
      () => slack.state.messages.find((m) => m.thread_ts === ts && JSON.stringify(m.blocks).includes('napping')),
      { timeoutMs: 30_000, what: 'the status showing the run’s output' },
    );
    const key = threadKey({ platform: 'slack', workspace: TEAM_ID, channel: CHANNEL_ID, thread: ts });
    const press = (userId?: string) =>
      slack.socket.send(
        'interactive',
        buttonPress({
          actionId: STOP_ACTION_ID,
          value: key,
          messageTs: status.ts,
          threadTs: ts,
          responseUrl: slack.responseUrl(),
          ...(userId ? { userId } : {}),
        }),
      );
    await press('U0SOMEONE2');
    const notice = await waitUntil(
      () => slack.callsTo('chat.postEphemeral').find((c) => c.args.user === 'U0SOMEONE2'),
      { timeoutMs: 10_000, what: 'the private notice to the other user' },
    );
    expect(String(notice.args.text)).toContain('can stop this run');
    await sleep(1000);
    expect(threadPosts(slack, ts).replies).toHaveLength(0);
    await press();
    const reply = await waitUntil(() => threadPosts(slack, ts).replies[0], {
      timeoutMs: 20_000,
      what: 'the reply after the starter’s Stop',
    });
    expect(answerText(reply)).toContain('Stopped');
  });

  it('SIGTERM mid-run: the run finishes, then gateway and workers exit 0 in time and leave no container', async () => {
    const { slack } = cluster;
    const running = cluster.processes.filter((p) => p.isRunning());
    expect(running.map((p) => p.role).sort()).toEqual(['gateway', 'worker', 'worker']);
    const mention = appMention({
      // The word is built at run time: the code quoted in the status cannot match it, only the run's output.
      text: `<@${BOT_USER_ID}> ${pythonBlock('import time\nprint("work" + "ing", flush=True)\ntime.sleep(3)\nprint("finished")')}`,
    });
    const ts = String(mention.ts);
    await sendEvent(slack, mention);
    await waitUntil(() => statusShowing(slack, ts, 'working'), { timeoutMs: 60_000, what: 'the run to be under way' });
    const sentAt = Date.now();
    for (const p of running) p.child.kill('SIGTERM');
    const exits = await Promise.all(running.map((p) => p.exited));
    const timings = running.map((p, i) => `${p.name} ${exits[i]!.atMs - sentAt} ms (code ${exits[i]!.code})`);
    log(`SIGTERM → exit: ${timings.join(', ')}`);
    for (const [i, exit] of exits.entries()) {
      const name = running[i]!.name;
      expect({ name, code: exit.code, signal: exit.signal }).toEqual({ name, code: 0, signal: null });
      // No run was cut short at the shutdown deadline (how long the exit took is the machine's, not asserted:
      // with other files beside this one a worker took 9.1 s, at load ~12 a 13 s bound was not enough).
      expect(running[i]!.output()).not.toContain(SHUTDOWN_DEADLINE_CAME);
    }
    // the run in flight was finished and answered before its worker left
    const replies = threadPosts(slack, ts).replies;
    expect(replies).toHaveLength(1);
    expect(answerText(replies[0]!)).toContain('finished');
    const lastWorkerExit = Math.max(...exits.filter((_, i) => running[i]!.role === 'worker').map((e) => e.atMs));
    expect(sentAt).toBeLessThan(replies[0]!.atMs);
    expect(replies[0]!.atMs).toBeLessThanOrEqual(lastWorkerExit);
    expect(await sandboxContainers(cluster.pids)).toEqual([]);
  });

  it('a gateway needs no Docker: it queues a message until a worker comes and answers it', async () => {
    const { slack } = cluster;
    const lone = await cluster.spawn('gateway-no-docker', 'gateway', {
      DOCKER_HOST: 'unix:///nonexistent/threadlab-roles-no-docker.sock',
      THREADLAB_SANDBOX_IMAGE: '',
      ...IDLE_SHUTDOWN_ENV,
    });
    const health = (await (await fetch(`${lone.opsUrl}/healthz`)).json()) as { ok: boolean; checks: object };
    expect(health).toEqual({ ok: true, checks: { redis: { ok: true } } });
    await slack.socket.waitForConnection(10_000);
    const mention = appMention({ text: `<@${BOT_USER_ID}> ${pythonBlock('print("late but answered")')}` });
    const ts = String(mention.ts);
    await sendEvent(slack, mention);
    await waitUntil(async () => metricValue(await fetchMetrics(lone), 'threadlab_queue_depth') === 1, {
      timeoutMs: 10_000,
      what: 'the message to wait in Redis',
    });
    await sleep(500);
    expect(threadPosts(slack, ts).replies).toHaveLength(0);

    const worker = await cluster.spawn('worker-late', 'worker', IDLE_SHUTDOWN_ENV);
    const reply = await waitUntil(() => threadPosts(slack, ts).replies[0], {
      timeoutMs: 60_000,
      what: 'the late reply',
    });
    expect(answerText(reply)).toContain('late but answered');
    const sentAt = Date.now();
    for (const p of [lone, worker]) p.child.kill('SIGTERM');
    for (const p of [lone, worker]) {
      const exit = await p.exited;
      expect({ name: p.name, code: exit.code }).toEqual({ name: p.name, code: 0 });
      // Idle, they do not wait out their shutdown timeout, set long enough that no loaded machine's exit comes near.
      expect(exit.atMs - sentAt).toBeLessThan(IDLE_SHUTDOWN_TIMEOUT_MS);
    }
    expect(await sandboxContainers(cluster.pids)).toEqual([]);
  });
});
