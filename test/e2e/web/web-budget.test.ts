import { startWebBot, type WebBotRig } from './web-bot-rig.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinOneUtcDay } from '../../support/utc-day.js';

// The web chat's /usage and a daily run-time budget over its HTTP API, on the real core (Bot) and Docker sandbox.

interface WebMessage {
  role: string;
  command?: string;
  text: string;
}

// Daily budgets count on the real clock: the test runs inside one UTC day.
beforeAll(() => withinOneUtcDay(2 * 60_000), 200_000);

describe('web chat: daily run-time budget and /usage', () => {
  let rig: WebBotRig;

  beforeAll(async () => {
    rig = await startWebBot('budget', { THREADLAB_BUDGET_USER_DAILY_RUN_SECONDS: '1' });
  });

  afterAll(async () => {
    expect(await rig?.stop()).toEqual([]);
  });

  const post = (path: string, body?: unknown) => rig.post(path, body);
  const messages = (id: string) => rig.messages<WebMessage>(id);

  it('tells the user at 80 %, shows what is left with /usage, and refuses the next run with the reset time', async () => {
    const { thread } = await post('/api/threads');
    const say = async (text: string, count: number) => {
      await post(`/api/threads/${thread.id}/messages`, { text });
      await expect.poll(async () => (await messages(thread.id)).length, { timeout: 90_000, interval: 200 }).toBe(count);
      return (await messages(thread.id))[count - 1]!;
    };
    const ran = await say('```python\nimport time\ntime.sleep(1.1)\nprint("slept")\n```', 2);
    expect(ran.text).toContain('slept');
    expect(ran.text).toMatch(
      /You have used \d+ % of your daily code run-time budget \([\d.]+ s of 1 s\)\. It resets at 00:00 UTC/,
    );

    const usage = await say('/usage', 4);
    expect((await messages(thread.id))[2]).toMatchObject({ role: 'user', command: 'usage' });
    expect(usage.text).toMatch(/You, run time: 1\.\d s of 1 s used \(100 %\), 0 s left/);

    const refused = await say('```python\nprint("must not run")\n```', 6);
    expect(refused.text).toMatch(
      /You have used your daily code run-time budget \([\d.]+ s of 1 s\), so this message was not run\. It resets at 00:00 UTC \(\d{4}-\d\d-\d\d\), in \d/,
    );
    expect(refused.text).not.toContain('must not run');
  }, 120_000);
});
