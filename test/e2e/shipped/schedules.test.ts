/**
 * Scheduled reports in the product as shipped: one `threadlab start` child process (in-process scheduler) with
 * Slack (Socket Mode, the real bolt against the fake) and the web chat. A schedule made in a thread fires on a
 * seconds-level interval (THREADLAB_SCHEDULE_MIN_INTERVAL lowered for the test), re-runs the thread's notebook in
 * the real sandbox and posts the new output in the thread; cancelling it stops it; each run is an audit line with
 * origin "schedule". Firings every second do not use up their creator's per-minute requests, so the creator's cancel
 * is never refused; another person's cancel is told to them alone (chat.postEphemeral), naming the creator by mention;
 * natural wordings parse, and one that does not is answered with the syntax without reaching the model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRunCode, fakeSay, type FakeStep } from '../../fakes/fake-openai-server.js';
import {
  appMention,
  BOT_USER_ID,
  CHANNEL_ID,
  eventCallback,
  messageEvent,
  slashCommand,
  USER_ID,
} from '../../fakes/fake-slack/index.js';
import { waitUntil } from '../roles/processes.js';
import { answerText, pythonBlock, threadPosts } from '../roles/slack-thread.js';
import { ShippedBot } from './shipped-bot.js';
import { WebClientForTests } from './web-client.js';

const bot = new ShippedBot({ slack: true, discord: true, web: true });
const web = new WebClientForTests(() => bot.webUrl);
const TICK = 'import time\nprint("tick", time.time_ns())';

beforeAll(async () => {
  // A low per-person rate: a schedule's firings must not use it up (they have their own bound, raised here).
  await bot.start({
    THREADLAB_SCHEDULE_MIN_INTERVAL: '1s',
    THREADLAB_USER_MAX_PER_MINUTE: '8',
    THREADLAB_SCHEDULE_MAX_FIRINGS_PER_MINUTE: '120',
  });
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

/** The replies (not the live status) posted into a Slack thread, as text. */
const slackReplies = (threadTs: string): string[] =>
  threadPosts(bot.slack, threadTs).replies.map((c) => `${String(c.args.text ?? '')}\n${answerText(c)}`);

async function slackReply(threadTs: string, match: RegExp, what: string): Promise<string> {
  return waitUntil(async () => slackReplies(threadTs).find((t) => match.test(t)), {
    timeoutMs: 60_000,
    what,
    intervalMs: 100,
  });
}

const auditLines = () =>
  readFileSync(join(bot.dataDir, 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('scheduled reports through threadlab start', () => {
  it('Slack: a schedule typed in the thread re-runs its notebook on time, in the user’s zone; cancel stops it', async () => {
    bot.slack.state.userTimeZones.set(USER_ID, 'Asia/Tokyo');
    const root = appMention({ text: `<@${BOT_USER_ID}> ${pythonBlock(TICK)}` });
    await bot.slack.socket.send('events_api', eventCallback(root));
    const first = await slackReply(root.ts as string, /tick \d+/, 'the first run');
    const say = (text: string) =>
      bot.slack.socket.send('events_api', eventCallback(messageEvent({ text, thread_ts: root.ts as string })));

    await say('schedule every day 09:00 how are sales?');
    expect(await slackReply(root.ts as string, /Scheduled #1/, 'the daily schedule')).toContain('(Asia/Tokyo)');
    expect(bot.slack.callsTo('users.info').some((c) => c.args.user === USER_ID)).toBe(true);
    await say('schedule every 2s rerun');
    await slackReply(root.ts as string, /Scheduled #2: every 2s/, 'the rerun schedule');
    const fired = await slackReply(root.ts as string, /Scheduled run \(every 2s\)/, 'a scheduled run');
    expect(fired).toMatch(/tick \d+/);
    expect(fired.match(/tick \d+/)![0]).not.toBe(first.match(/tick \d+/)![0]);

    await say('schedule list');
    const list = await slackReply(root.ts as string, /Schedules in this thread \(2\)/, 'the list');
    expect(list).toContain('#2 every 2s');
    await say('schedule cancel 2');
    await slackReply(root.ts as string, /Cancelled schedule #2/, 'the cancel');
    await say('schedule cancel 1');
    await slackReply(root.ts as string, /Cancelled schedule #1/, 'the second cancel');
    const count = slackReplies(root.ts as string).filter((t) => /Scheduled run/.test(t)).length;
    await new Promise((r) => setTimeout(r, 5000));
    // One firing may have been queued just before the cancel; none after it.
    expect(slackReplies(root.ts as string).filter((t) => /Scheduled run/.test(t)).length).toBeLessThanOrEqual(
      count + 1,
    );
    // Without users:read, Slack refuses users.info: times of day are in UTC, and the schedule is still made.
    bot.slack.state.unsupported.set('users.info', { error: 'missing_scope', needed: 'users:read' });
    await say('schedule every day 10:00 how are sales?');
    expect(await slackReply(root.ts as string, /Scheduled #1: every day 10:00/, 'the UTC schedule')).toContain('(UTC)');
    bot.slack.state.unsupported.delete('users.info');
    await say('schedule cancel 1');
    await slackReply(root.ts as string, /Cancelled schedule #1 \(every day 10:00/, 'the third cancel');
    // Every due time has its line (one that found the thread still busy says `skipped`); each run, its runs' lines.
    const lines = auditLines().filter((l) => l.kind === 'schedule' && l.platform === 'slack');
    for (const line of lines) expect(line).toMatchObject({ origin: 'schedule', user: USER_ID, task: 'rerun' });
    const ran = lines.filter((l) => l.outcome === 'ok');
    expect(ran.length).toBeGreaterThanOrEqual(1);
    expect(lines.every((l) => l.outcome === 'ok' || l.outcome === 'skipped')).toBe(true);
    const runs = auditLines().filter((l) => l.kind === 'run' && l.job === ran[0]!.job);
    expect(runs).toHaveLength(1);
  }, 120_000);

  it('Slack: /interpreter schedule with a question starts a thread whose schedule asks the model anew', async () => {
    // Each firing: the model runs code, then answers from its output.
    const step: FakeStep = (body) =>
      body.messages.at(-1)?.role === 'tool' ? fakeSay('Six times seven is 42.') : fakeRunCode('print(6 * 7)');
    bot.llm.push(...Array.from({ length: 20 }, () => step));
    const ack = await bot.slack.socket.send(
      'slash_commands',
      slashCommand({ text: 'schedule list', responseUrl: bot.slack.responseUrl('list') }),
    );
    expect(JSON.stringify(ack.payload)).toMatch(/In the thread you mean, send `schedule list`/);
    await bot.slack.socket.send(
      'slash_commands',
      slashCommand({ text: 'schedule every 2s What is 6*7?', responseUrl: bot.slack.responseUrl('make') }),
    );
    const root = await waitUntil(
      () =>
        bot.slack.state.messages.find(
          (m) => m.channel === CHANNEL_ID && !m.thread_ts && m.text.includes('scheduled: every 2s What is 6*7?'),
        ),
      { timeoutMs: 30_000, what: 'the root message of the scheduled thread' },
    );
    await slackReply(root.ts, /Scheduled #1: every 2s, ask “What is 6\*7\?”/, 'the schedule made');
    const fired = await slackReply(root.ts, /Scheduled run \(every 2s\)/, 'a scheduled answer');
    expect(fired).toContain('Six times seven is 42.');
    await bot.slack.socket.send(
      'events_api',
      eventCallback(messageEvent({ text: 'schedule cancel 1', thread_ts: root.ts })),
    );
    await slackReply(root.ts, /Cancelled schedule #1/, 'the cancel');
  }, 120_000);

  it('Slack: firings every second leave the creator’s cancel alone; another’s cancel is ephemeral, by mention', async () => {
    const FRANK = 'U0FRANK01';
    bot.llm.push(...Array.from({ length: 60 }, () => fakeSay('Sales are up 4 %.')));
    const root = appMention({ text: `<@${BOT_USER_ID}> ${pythonBlock('print("ready")')}`, user: FRANK });
    await bot.slack.socket.send('events_api', eventCallback(root));
    const ts = root.ts as string;
    await slackReply(ts, /ready/, 'the first run');
    const say = (text: string, user = FRANK) =>
      bot.slack.socket.send('events_api', eventCallback(messageEvent({ text, thread_ts: ts, user })));

    await say('schedule every 1s how are sales?');
    await slackReply(ts, /Scheduled #1: every 1s/, 'the schedule');
    // More firings than Frank's 8 requests a minute, less his root message and schedule.
    const firings = () => slackReplies(ts).filter((t) => /Scheduled run \(every 1s\) for <@U0FRANK01>\./.test(t));
    await waitUntil(() => firings().length >= 7, { timeoutMs: 60_000, what: 'seven firings', intervalMs: 100 });

    // Someone else's cancel: refused to them alone, in the thread, naming Frank by mention.
    await say('schedule cancel 1', USER_ID);
    const ephemeral = await waitUntil(
      () => bot.slack.callsTo('chat.postEphemeral').find((c) => String(c.args.text).includes('cancel schedule #1')),
      { timeoutMs: 30_000, what: 'the ephemeral refusal' },
    );
    expect(ephemeral.args).toMatchObject({
      channel: CHANNEL_ID,
      user: USER_ID,
      thread_ts: ts,
      text: 'Only <@U0FRANK01> (who made it) or a Threadlab admin can cancel schedule #1.',
    });
    expect(slackReplies(ts).some((t) => t.includes('who made it'))).toBe(false);

    // Frank's own cancel, with his minute's requests long used up by firings in the old rule.
    await say('schedule cancel 1');
    await slackReply(ts, /Cancelled schedule #1 \(every 1s/, 'the creator’s cancel');
    expect(slackReplies(ts).some((t) => /You have sent \d+ requests/.test(t))).toBe(false);

    // Natural wordings parse; one that looks like a schedule and does not is answered with the syntax.
    await say('schedule every weekday at 9am how are sales?');
    await slackReply(ts, /Scheduled #1: every weekday 09:00 \(UTC\), ask “how are sales\?”/, 'the weekday schedule');
    await say('schedule weekly on friday at 5:30pm rerun');
    await slackReply(ts, /Scheduled #2: every friday 17:30 \(UTC\), re-run/, 'the weekly schedule');
    const asked = bot.llm.requests.length;
    await say('schedule daily whenever sales move');
    const usage = await slackReply(ts, /Give a time of day/, 'the syntax');
    expect(usage).toMatch(/For example: `schedule every weekday at 9am/);
    const list = await (async () => {
      await say('schedule list');
      return slackReply(ts, /Schedules in this thread \(2\)/, 'the list');
    })();
    expect(list).toContain('— by <@U0FRANK01>, next');
    await say('schedule cancel 2');
    await slackReply(ts, /Cancelled schedule #2/, 'the second cancel');
    await say('schedule cancel 1');
    await slackReply(ts, /Cancelled schedule #1 \(every weekday/, 'the third cancel');
    expect(bot.llm.requests.slice(asked).some((r) => JSON.stringify(r).includes('whenever'))).toBe(false);
  }, 150_000);

  it('Discord: schedule typed in a thread fires there; the /schedule slash command lists through its interaction', async () => {
    const msg = bot.discord.userMessage({
      channelId: bot.discord.textChannelId,
      content: `<@${bot.discord.bot.id}> ${pythonBlock(TICK)}`,
      mentionBot: true,
    });
    const threadId = String(msg.id);
    const posted = (text: RegExp) =>
      bot.discord.waitForRequest(
        (r) =>
          r.method === 'POST' &&
          r.path === `/channels/${threadId}/messages` &&
          !(r.json?.components?.length > 0) &&
          text.test(String(r.json?.content)),
        60_000,
      );
    await posted(/tick \d+/);
    bot.discord.userMessage({ channelId: threadId, content: 'schedule every 2s rerun' });
    await posted(/Scheduled #1: every 2s/);
    const fired = await posted(/Scheduled run \(every 2s\)/);
    expect(String(fired.json?.content)).toMatch(/tick \d+/);
    bot.discord.userMessage({ channelId: threadId, content: 'schedule cancel 1' });
    await posted(/Cancelled schedule #1/);
    const interaction = bot.discord.slashCommand({
      name: 'schedule',
      options: [{ name: 'what', type: 3, value: 'list' }],
    });
    await bot.discord.waitForRequest(
      (r) =>
        r.path.startsWith(`/webhooks/${bot.discord.applicationId}/${String(interaction.token)}`) &&
        /No schedules in this thread/.test(JSON.stringify(r.json)),
      60_000,
    );
  }, 120_000);

  it('web chat: /schedule re-runs the notebook in a fresh container with the saved variables; cancel stops it', async () => {
    const thread = await web.createThread();
    const bots = async () => (await web.messages(thread)).filter((m) => m.role === 'bot');
    // A variable from a run that failed: kept in the thread's state, but its code is not in the notebook.
    await web.post(thread, { text: pythonBlock('secret = 7\nraise ValueError("not in the notebook")') });
    await waitUntil(async () => (await bots()).find((m) => m.text.includes('not in the notebook')), {
      timeoutMs: 90_000,
      what: 'the failed run',
    });
    // /tmp is the container's own: a mark left there says whether a run is in the same container as before.
    const cell =
      "import os\nfresh = not os.path.exists('/tmp/mark')\nopen('/tmp/mark', 'w').close()\nprint('fresh', fresh, 'secret', secret)";
    await web.post(thread, { text: pythonBlock(cell) });
    await waitUntil(async () => (await bots()).find((m) => /fresh True secret 7/.test(m.text)), {
      timeoutMs: 60_000,
      what: 'the notebook cell',
    });
    await web.post(thread, { text: pythonBlock(cell) });
    await waitUntil(async () => (await bots()).find((m) => /fresh False secret 7/.test(m.text)), {
      timeoutMs: 60_000,
      what: 'the same cell again, in the same container',
    });
    await web.post(thread, { text: '/schedule every 2s rerun' });
    await waitUntil(async () => (await bots()).find((m) => /Scheduled #1: every 2s/.test(m.text)), {
      timeoutMs: 30_000,
      what: 'the schedule made',
    });
    const fired = await waitUntil(
      async () => {
        const runs = (await bots()).filter((m) => /Scheduled run \(every 2s\)/.test(m.text));
        return runs.length >= 2 && runs;
      },
      { timeoutMs: 30_000, what: 'two scheduled runs' },
    );
    // Only the notebook's cells ran (the failed one is not in it), each time in a fresh container, `secret` restored.
    for (const run of fired) {
      expect(run.text).toContain('Re-ran 2 of 2 cells');
      expect(run.text).toMatch(/fresh True secret 7[\s\S]*fresh False secret 7/);
    }
    await web.post(thread, { text: '/schedule cancel 1' });
    await waitUntil(async () => (await bots()).find((m) => /Cancelled schedule #1/.test(m.text)), {
      timeoutMs: 30_000,
      what: 'the cancel',
    });
    const count = (await bots()).filter((m) => /Scheduled run/.test(m.text)).length;
    await new Promise((r) => setTimeout(r, 5000));
    expect((await bots()).filter((m) => /Scheduled run/.test(m.text)).length).toBeLessThanOrEqual(count + 1);
  }, 120_000);
});
