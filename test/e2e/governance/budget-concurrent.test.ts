/**
 * A daily run-time budget against messages sent at the same moment, in the shipped process (`threadlab start`, web
 * chat), with its counters in memory and in Redis: four threads each send a fenced 3 s sleep at once against a 2 s
 * budget. Each run holds its time limit before it starts, so one runs and three are refused with the reset time,
 * and the day's spend is that one run's, not four (it was 24 s of 2 s when every run was admitted together). With the
 * budget spent, files sent alone are added but not previewed: a preview runs code too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../support/redis-server.js';
import { withinOneUtcDay } from '../../support/utc-day.js';
import { waitUntil } from '../roles/processes.js';
import { ShippedBot } from '../shipped/shipped-bot.js';
import { WebClientForTests } from '../shipped/web-client.js';

const SLEEP = '```python\nimport time\ntime.sleep(3)\nprint("slept")\n```';
const REFUSED =
  /You have used your daily code run-time budget \([\d.]+ s of 2 s\), so this message was not run\. It resets at 00:00 UTC/;

let redis: PrivateRedis;

beforeAll(async () => {
  redis = await startPrivateRedis();
  // Daily budgets count on the real clock: the test runs inside one UTC day.
  await withinOneUtcDay(3 * 60_000);
}, 300_000);

afterAll(async () => {
  await redis?.stop();
}, 60_000);

describe.each([
  { store: 'memory', env: (): Record<string, string> => ({}) },
  { store: 'Redis', env: (): Record<string, string> => ({ REDIS_URL: redis.url }) },
])('a run-time budget, messages at once, counters in $store', ({ env }) => {
  const bot = new ShippedBot({ web: true });
  const web = new WebClientForTests(() => bot.webUrl);

  afterAll(async () => {
    await bot.cleanup();
  }, 60_000);

  it('runs one of four simultaneous runs and refuses three; the day counts one run', async () => {
    await bot.start({
      ...env(),
      THREADLAB_BUDGET_USER_DAILY_RUN_SECONDS: '2',
      THREADLAB_SANDBOX_TIMEOUT_MS: '8000',
      THREADLAB_CONCURRENCY: '4',
      THREADLAB_USER_MAX_CONCURRENT: '4',
    });
    const threads = await Promise.all([1, 2, 3, 4].map(() => web.createThread()));
    await Promise.all(threads.map((thread) => web.post(thread, { text: SLEEP })));
    const answers = await Promise.all(
      threads.map((thread) =>
        waitUntil(
          async () => (await web.messages(thread)).find((m) => m.role === 'bot' && /slept|not run/.test(m.text)),
          { timeoutMs: 120_000, what: `an answer in web thread ${thread}`, intervalMs: 100 },
        ),
      ),
    );
    const ran = answers.filter((a) => a.text.includes('slept'));
    const refused = answers.filter((a) => REFUSED.test(a.text));
    expect(ran, answers.map((a) => a.text).join('\n---\n')).toHaveLength(1);
    expect(refused).toHaveLength(3);

    await web.post(threads[0]!, { text: '/usage' });
    const usage = await waitUntil(
      async () => (await web.messages(threads[0]!)).find((m) => m.role === 'bot' && m.text.includes('run time')),
      { timeoutMs: 60_000, what: '/usage', intervalMs: 100 },
    );
    // One 3 s run: over the budget by less than one run's time limit (8 s), never by the three refused runs.
    const used = Number(/You, run time: ([\d.]+) s of 2 s used/.exec(usage.text)?.[1]);
    expect(used, usage.text).toBeGreaterThanOrEqual(3);
    expect(used, usage.text).toBeLessThan(2 + 8);

    // The budget is spent: files sent without a question are still added, but not previewed (a preview runs code).
    const thread = await web.createThread();
    const csv = Buffer.from('city,sales\nOslo,10\nLima,20\n');
    await web.post(thread, { text: '', attachments: [{ name: 'sales.csv', mime: 'text/csv', data: csv }] });
    const added = await waitUntil(
      async () => (await web.messages(thread)).find((m) => m.role === 'bot' && m.text.includes('sales.csv')),
      { timeoutMs: 60_000, what: 'the upload acknowledgement', intervalMs: 100 },
    );
    expect(added.text).toMatch(/Not previewed: You have used your daily code run-time budget/);
    expect(added.text).not.toMatch(/rows ×/);
  }, 240_000);
});
