/**
 * A schedule stops by itself, and says so once in its thread, through `threadlab start` with the real sandbox:
 * after three failed re-runs in a row (web chat), and once its creator's daily run-time budget is spent (Slack,
 * the real bolt against the fake). Seconds-level intervals (THREADLAB_SCHEDULE_MIN_INTERVAL=1s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMention, BOT_USER_ID, eventCallback, messageEvent } from '../../fakes/fake-slack/index.js';
import { waitUntil } from '../roles/processes.js';
import { answerText, pythonBlock, threadPosts } from '../roles/slack-thread.js';
import { ShippedBot } from './shipped-bot.js';
import { WebClientForTests } from './web-client.js';

const bot = new ShippedBot({ slack: true, web: true });
const web = new WebClientForTests(() => bot.webUrl);

beforeAll(async () => {
  await bot.start({ THREADLAB_SCHEDULE_MIN_INTERVAL: '1s', THREADLAB_BUDGET_USER_DAILY_RUN_SECONDS: '1' });
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

describe('a schedule stops by itself, saying so once', () => {
  it('after three failed runs in a row (web chat)', async () => {
    const thread = await web.createThread();
    // Succeeds once; every re-run finds the file longer and fails.
    const cell =
      "p = '/mnt/data/n.txt'\nopen(p, 'a').write('x')\nassert len(open(p).read()) == 1, 'ran before'\nprint('once')";
    await web.post(thread, { text: pythonBlock(cell) });
    expect((await web.waitForAnswer(thread, 90_000)).text).toContain('once');
    await web.post(thread, { text: '/schedule every 1s rerun' });
    const bots = async () => (await web.messages(thread)).filter((m) => m.role === 'bot');
    const stopped = await waitUntil(async () => (await bots()).find((m) => /has stopped/.test(m.text)), {
      timeoutMs: 60_000,
      what: 'the stop notice',
    });
    expect(stopped.text).toMatch(/has stopped: its last 3 runs failed in a row/);
    const failed = (await bots()).filter((m) => /Scheduled run/.test(m.text));
    expect(failed).toHaveLength(3);
    for (const run of failed) expect(run.text).toContain('ran before');
    await new Promise((r) => setTimeout(r, 3000));
    const after = await bots();
    expect(after.filter((m) => /has stopped/.test(m.text))).toHaveLength(1);
    expect(after.filter((m) => /Scheduled run/.test(m.text))).toHaveLength(3);
    await web.post(thread, { text: '/schedule list' });
    await waitUntil(async () => (await bots()).find((m) => /No schedules in this thread/.test(m.text)), {
      timeoutMs: 30_000,
      what: 'an empty list',
    });
  }, 120_000);

  it('once the creator’s daily budget is spent (Slack)', async () => {
    const root = appMention({
      text: `<@${BOT_USER_ID}> ${pythonBlock('import time\ntime.sleep(0.6)\nprint("slept")')}`,
    });
    const ts = root.ts as string;
    await bot.slack.socket.send('events_api', eventCallback(root));
    const replies = () => threadPosts(bot.slack, ts).replies.map((c) => `${String(c.args.text)}\n${answerText(c)}`);
    await waitUntil(() => replies().find((t) => t.includes('slept')), { timeoutMs: 90_000, what: 'the first run' });
    const say = (text: string) =>
      bot.slack.socket.send('events_api', eventCallback(messageEvent({ text, thread_ts: ts })));
    // A second run takes what is left of the 1 s budget.
    await say(pythonBlock('import time\ntime.sleep(0.6)\nprint("again")'));
    await waitUntil(() => replies().length >= 2 && replies()[1], { timeoutMs: 60_000, what: 'the second run' });
    await say('schedule every 1s rerun');
    await waitUntil(() => replies().find((t) => /Scheduled #1: every 1s/.test(t)), {
      timeoutMs: 60_000,
      what: 'the schedule made',
    });
    const stopped = await waitUntil(() => replies().find((t) => /has stopped/.test(t)), {
      timeoutMs: 60_000,
      what: 'the stop notice',
    });
    expect(stopped).toMatch(/has stopped: the daily budget of <@U0USER01> is spent/);
    await new Promise((r) => setTimeout(r, 3000));
    expect(replies().filter((t) => /has stopped/.test(t))).toHaveLength(1);
    expect(replies().filter((t) => /Scheduled run/.test(t))).toHaveLength(0);
  }, 120_000);
});
