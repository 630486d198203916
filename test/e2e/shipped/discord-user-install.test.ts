/**
 * Discord as it is now (issue 40, item 6), through the product as shipped: one `threadlab start` process with
 * Discord only, the real discord.js against the fake gateway and REST server, the real Docker sandbox. The app
 * installed to a user's account answers in a server the bot is not in and in a group DM entirely through the
 * interaction's webhook (text, chart, file, the Stop button), never with the bot token there; /run's code option
 * keeps working with a fence typed around it; /run without code opens a modal whose multi-line program runs over
 * a CSV uploaded in the same form. The cases are independent (one uses the model), so they run concurrently.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../fakes/fake-discord/index.js';
import { fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { PNG_SIGNATURE } from './scenarios.js';
import { ShippedBot } from './shipped-bot.js';

const bot = new ShippedBot({ discord: true });

beforeAll(async () => {
  await bot.start();
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

const f = () => bot.discord;

/** Every webhook call made with one interaction's token, in order. */
const webhookCalls = (token: string): RecordedRequest[] =>
  f().requests.filter((r) => r.path.startsWith(`/webhooks/${f().applicationId}/${token}`));

/** Waits for a webhook write with `token` whose content includes `text`. */
const answered = (token: string, text: string) =>
  f().waitForRequest(
    (r) =>
      r.path.startsWith(`/webhooks/${f().applicationId}/${token}`) &&
      r.method !== 'GET' &&
      r.status < 300 &&
      String(r.json?.content ?? '').includes(text),
    120_000,
  );

/** Python that charts a small table, writes it as summary.csv and prints its total (54). */
const CHART_AND_FILE = [
  'import pandas as pd, matplotlib',
  'matplotlib.use("Agg")',
  'import matplotlib.pyplot as plt',
  'df = pd.DataFrame({"month": ["Jan", "Feb", "Mar", "Apr"], "revenue": [10, 14, 9, 21]})',
  'df.to_csv("/mnt/data/summary.csv", index=False)',
  'fig, ax = plt.subplots()',
  'ax.bar(df["month"], df["revenue"])',
  'ax.set_title("Revenue by month")',
  'plt.show()',
  'print("total", df.revenue.sum())',
].join('\n');

describe.concurrent('Discord user installs, fenced /run and modals through threadlab start', () => {
  it('a user install in a server the bot is not in is answered (text, chart, file, Stop) through the interaction webhook only', async () => {
    const answer = 'Revenue totals 54; the chart and summary.csv are attached.';
    bot.llm.push(fakeRunCode(CHART_AND_FILE), fakeSay(answer));
    const interaction = f().userInstallCommand({
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'chart the revenue and give me the table' }],
    });
    const token = String(interaction.token);
    await answered(token, answer);
    const callback = f().requests.find((r) => r.path === `/interactions/${String(interaction.id)}/${token}/callback`);
    expect(callback?.json).toMatchObject({ type: 5 });
    // The status, with its Stop button, was the deferred reply, edited through the webhook.
    const stop = webhookCalls(token).find((r) =>
      JSON.stringify(r.json?.components ?? []).includes('threadlab_stop:discord:'),
    );
    expect(stop?.path).toBe(`/webhooks/${f().applicationId}/${token}/messages/@original`);
    const files = webhookCalls(token).flatMap((r) => r.files);
    const png = files.find((file) => file.filename.endsWith('.png'));
    expect(png?.data.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    const csv = files.find((file) => file.filename === 'summary.csv');
    expect(csv?.data.toString('utf8')).toContain('Apr,21');
    // No webhook call carried the bot token, and the bot token never touched that server or channel.
    expect(webhookCalls(token).every((r) => r.headers.authorization === undefined)).toBe(true);
    expect(f().botTokenCallsAbout(f().foreignChannelId)).toEqual([]);
    expect(f().botTokenCallsAbout(f().foreignGuildId)).toEqual([]);
    // At most the deferred reply and Discord's 5 follow-ups for a user install where the app is not installed.
    expect(webhookCalls(token).filter((r) => r.method === 'POST').length).toBeLessThanOrEqual(5);
  }, 150_000);

  it('/run with a one-line fence in its code option runs the block in the tag’s language', async () => {
    const interaction = f().slashCommand({
      name: 'run',
      options: [{ name: 'code', type: 3, value: '```python print(6*7)```' }],
    });
    const reply = await answered(String(interaction.token), '42');
    expect(String(reply.json.content)).not.toContain('SyntaxError');
  }, 120_000);

  it('/run without code opens a modal; its multi-line program runs over the CSV uploaded in it, in a group DM', async () => {
    const opened = f().userInstallCommand({ name: 'run', where: 'groupDm' });
    const modal = await f().waitForRequest(
      (r) => r.path === `/interactions/${String(opened.id)}/${String(opened.token)}/callback`,
    );
    expect(modal.json).toMatchObject({ type: 9, data: { custom_id: 'threadlab_modal:run' } });
    const kinds = (modal.json.data.components as { type: number; component: { type: number } }[]).map((c) => [
      c.type,
      c.component.type,
    ]);
    expect(kinds).toEqual([
      [18, 4],
      [18, 19],
    ]);
    const csv = f().hostAttachment(
      'sales.csv',
      Buffer.from('month,sales\nJan,10\nFeb,14\nMar,9\nApr,21\n'),
      'text/csv',
    );
    const program = [
      '```python',
      'import csv',
      'rows = list(csv.DictReader(open("sales.csv")))',
      'best = max(rows, key=lambda r: int(r["sales"]))',
      'print("rows", len(rows), "best", best["month"], "sum", sum(int(r["sales"]) for r in rows))',
      '```',
    ].join('\n');
    const submitted = f().modalSubmit({
      customId: 'threadlab_modal:run',
      text: { customId: 'text', value: program },
      files: { customId: 'files', attachments: [csv] },
      where: 'groupDm',
    });
    await answered(String(submitted.token), 'rows 4 best Apr sum 54');
    expect(f().botTokenCallsAbout(f().groupDmChannelId)).toEqual([]);
  }, 120_000);
});
