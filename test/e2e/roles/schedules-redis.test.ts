/**
 * Scheduled reports with REDIS_URL (BullMQ job schedulers), through the shipped process:
 * - a schedule made in the web chat of `threadlab start` keeps firing after the process is stopped and started again;
 * - a schedule whose creator a restart with a new allowlist leaves out stops, saying so once in its Slack thread;
 * - with a gateway and two worker processes, each due time of a schedule made in a Slack thread runs exactly once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appMention, BOT_USER_ID, messageEvent } from '../../fakes/fake-slack/index.js';
import { startPrivateRedis, type PrivateRedis } from '../../support/redis-server.js';
import { ShippedBot } from '../shipped/shipped-bot.js';
import { WebClientForTests } from '../shipped/web-client.js';
import { RolesCluster } from './cluster.js';
import { waitUntil } from './processes.js';
import { answerText, pythonBlock, sendEvent, threadPosts } from './slack-thread.js';

const log = (line: string) => process.stderr.write(`[schedules redis] ${line}\n`);
const TICK = 'import time\nprint("tick", time.time_ns())';
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}, 90_000);

describe('schedules in Redis', () => {
  it('survive a restart of threadlab start', async () => {
    const redis: PrivateRedis = await startPrivateRedis();
    cleanups.push(() => redis.stop());
    const bot = new ShippedBot({ web: true });
    cleanups.push(() => bot.cleanup());
    const env = { REDIS_URL: redis.url, THREADLAB_SCHEDULE_MIN_INTERVAL: '1s' };
    await bot.start(env);
    const web = new WebClientForTests(() => bot.webUrl);
    const thread = await web.createThread();
    await web.post(thread, { text: pythonBlock(TICK) });
    await web.waitForAnswer(thread, 90_000);
    await web.post(thread, { text: '/schedule every 3s rerun' });
    const runs = async () =>
      (await web.messages(thread)).filter((m) => m.role === 'bot' && /Scheduled run \(every 3s\)/.test(m.text));
    await waitUntil(async () => (await runs()).length >= 1, { timeoutMs: 60_000, what: 'a first scheduled run' });

    const first = bot.process;
    // Read before the stop: the web chat goes with the process (its threads stay on disk).
    const before = (await runs()).length;
    first.child.kill('SIGTERM');
    const exit = await first.exited;
    expect(exit.code, first.output()).toBe(0);
    const stoppedAt = Date.now();
    await bot.spawn(env);
    await bot.process.ready(120_000);
    log(`restarted in ${Date.now() - stoppedAt} ms with ${before} scheduled runs so far`);
    await waitUntil(async () => (await runs()).length >= before + 2, {
      timeoutMs: 60_000,
      what: 'two scheduled runs after the restart',
    });
    const after = await runs();
    expect(after.at(-1)!.text).toMatch(/tick \d+/);
    await web.post(thread, { text: '/schedule list' });
    await waitUntil(
      async () => (await web.messages(thread)).find((m) => m.role === 'bot' && /#1 every 3s/.test(m.text)),
      { timeoutMs: 30_000, what: 'the schedule listed after the restart' },
    );
  }, 240_000);

  it('stop, saying so once, when a restart with a new allowlist leaves their creator out', async () => {
    const redis: PrivateRedis = await startPrivateRedis();
    cleanups.push(() => redis.stop());
    const bot = new ShippedBot({ slack: true });
    cleanups.push(() => bot.cleanup());
    const env = { REDIS_URL: redis.url, THREADLAB_SCHEDULE_MIN_INTERVAL: '1s' };
    await bot.start(env);
    const root = appMention({ text: `<@${BOT_USER_ID}> ${pythonBlock(TICK)}` });
    const ts = root.ts as string;
    await sendEvent(bot.slack, root);
    const replies = () => threadPosts(bot.slack, ts).replies.map((c) => `${String(c.args.text)}\n${answerText(c)}`);
    await waitUntil(() => replies().find((t) => /tick \d+/.test(t)), { timeoutMs: 90_000, what: 'the first run' });
    await sendEvent(bot.slack, messageEvent({ text: 'schedule every 2s rerun', thread_ts: ts }));
    await waitUntil(() => replies().find((t) => /Scheduled run/.test(t)), {
      timeoutMs: 60_000,
      what: 'a scheduled run',
    });

    const first = bot.process;
    first.child.kill('SIGTERM');
    expect((await first.exited).code, first.output()).toBe(0);
    // The admin now lets in only someone else: the schedule's creator is out.
    await bot.spawn({ ...env, THREADLAB_ACCESS_USERS: 'slack:U0OTHER99' });
    await bot.process.ready(120_000);
    await bot.slack.socket.waitForConnection();
    const stopped = await waitUntil(() => replies().find((t) => /has stopped/.test(t)), {
      timeoutMs: 60_000,
      what: 'the stop notice',
    });
    expect(stopped).toMatch(/has stopped: <@U0USER01> no longer has access to Threadlab here/);
    const runs = replies().filter((t) => /Scheduled run/.test(t)).length;
    await new Promise((r) => setTimeout(r, 5000));
    expect(replies().filter((t) => /has stopped/.test(t))).toHaveLength(1);
    expect(replies().filter((t) => /Scheduled run/.test(t))).toHaveLength(runs);
  }, 240_000);

  it('fire each due time once across two workers', async () => {
    const cluster = new RolesCluster();
    cleanups.push(() => cluster.cleanup());
    await cluster.startGatewayAndWorkers(['w1', 'w2'], { THREADLAB_SCHEDULE_MIN_INTERVAL: '1s' });
    const root = appMention({ text: `<@${BOT_USER_ID}> ${pythonBlock(TICK)}` });
    const ts = root.ts as string;
    await sendEvent(cluster.slack, root);
    const replies = () => threadPosts(cluster.slack, ts).replies.map((c) => `${String(c.args.text)}\n${answerText(c)}`);
    await waitUntil(() => replies().find((t) => /tick \d+/.test(t)), { timeoutMs: 90_000, what: 'the first run' });
    await sendEvent(cluster.slack, messageEvent({ text: 'schedule every 2s rerun', thread_ts: ts }));
    await waitUntil(() => replies().find((t) => /Scheduled #1: every 2s/.test(t)), {
      timeoutMs: 60_000,
      what: 'the schedule made',
    });
    const scheduled = () => replies().filter((t) => /Scheduled run \(every 2s\)/.test(t));
    await waitUntil(() => scheduled().length >= 1, { timeoutMs: 60_000, what: 'a first scheduled run' });
    await new Promise((r) => setTimeout(r, 10_000));
    await sendEvent(cluster.slack, messageEvent({ text: 'schedule cancel 1', thread_ts: ts }));
    await waitUntil(() => replies().find((t) => /Cancelled schedule #1/.test(t)), {
      timeoutMs: 30_000,
      what: 'the cancel',
    });
    await cluster.settled();
    // Each due time was taken once: one schedule audit line per due time (the firing's job id names it), none
    // twice, and no more lines than due times passed (both workers firing would make about twice as many). A due
    // time that finds the thread still busy with the last one is skipped, said on its line.
    const readFired = () =>
      readFileSync(join(cluster.workerDataDir, 'audit.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { kind: string; job: string; outcome: string; ts: string })
        .filter((l) => l.kind === 'schedule');
    // The audit file is written a moment after a firing's answer is posted: read it once it has every line.
    await waitUntil(() => readFired().filter((l) => l.outcome === 'ok').length >= scheduled().length || undefined, {
      timeoutMs: 15_000,
      what: 'an audit line for each scheduled run posted',
    }).catch(() => undefined);
    const fired = readFired();
    const dueTimes = fired.map((l) => Number(/:(\d+)$/.exec(l.job)![1]));
    const spanMs = Math.max(...dueTimes) - Math.min(...dueTimes);
    const ran = fired.filter((l) => l.outcome === 'ok').length;
    log(`${fired.length} due times over ${spanMs} ms: ${ran} ran, ${fired.length - ran} skipped (thread busy)`);
    expect(new Set(fired.map((l) => l.job)).size).toBe(fired.length);
    expect(fired.length).toBeLessThanOrEqual(spanMs / 2000 + 1);
    expect(fired.length).toBeGreaterThanOrEqual(5);
    expect(fired.every((l) => l.outcome === 'ok' || l.outcome === 'skipped')).toBe(true);
    expect(scheduled().length).toBe(ran);
    expect(ran).toBeGreaterThanOrEqual(2);
  }, 240_000);
});
