/**
 * Running what is already in the channel, through the product as shipped: one `threadlab start` process with
 * Slack (Socket Mode), Discord and the web chat, the real Docker sandbox, and no model call at all (these are
 * direct runs). Discord's Apps → Run code and Slack's Run in Threadlab shortcut run another person's message for
 * the invoker; an attached script sent with "run" runs on each platform. Hostile cases: a message without code,
 * a script over THREADLAB_SCRIPT_MAX_KB, an invalid notebook, an invoker without direct-mode rights, channels the
 * bot cannot read. The audit trail names the invoker and says the code came from another message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_SHORTCUT_CALLBACK_ID } from '../../../adapters/slack/map-shortcut.js';
import { payloads } from '../../fakes/fake-discord/index.js';
import {
  appMention,
  BOT_USER_ID,
  eventCallback,
  messageShortcut,
  nextTs,
  richText,
  richTextFallback,
  USER_ID,
} from '../../fakes/fake-slack/index.js';
import { ShippedBot } from './shipped-bot.js';
import { WebClientForTests } from './web-client.js';
import { launchChromium, openNewThread, watchPageErrors } from '../web/browser.js';

const bot = new ShippedBot({ slack: true, discord: true, web: true });
/** A Slack user the direct-mode allowlist does not name. */
const NO_DIRECT = 'U0NODIRECT';
const SCRIPT_MAX_KB = 16;

/** Discord users: bob may run code directly, eve may not (ada, the fake's human, may too). */
const bob = payloads.user(payloads.snowflake(), 'bob');
const eve = payloads.user(payloads.snowflake(), 'eve');

beforeAll(async () => {
  await bot.startFakes();
  await bot.spawn({
    THREADLAB_ACCESS_DIRECT_USERS: `slack:${USER_ID},discord:${bob.id},discord:${bot.discord.human.id}`,
    THREADLAB_SCRIPT_MAX_KB: String(SCRIPT_MAX_KB),
  });
  await bot.process.ready(120_000);
  await bot.slack.socket.waitForConnection();
  await bot.discord.gateway.whenIdentified();
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

const auditLines = (): Record<string, unknown>[] =>
  readFileSync(join(bot.dataDir, 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const notebook = (cells: string[]) =>
  Buffer.from(
    JSON.stringify({
      nbformat: 4,
      nbformat_minor: 5,
      metadata: { kernelspec: { name: 'python3', language: 'python' } },
      cells: [
        { cell_type: 'markdown', metadata: {}, source: ['# Totals'] },
        ...cells.map((c) => ({ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source: c })),
      ],
    }),
  );

describe('Discord through threadlab start', () => {
  const f = () => bot.discord;
  const postedIn = (threadId: string, text: string) =>
    f().waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        !(r.json?.components?.length > 0) &&
        String(r.json?.content).includes(text),
      90_000,
    );

  it("Apps → Run code runs ada's blocks for bob in a thread on her message; the audit line is bob's", async () => {
    const target = f().userMessage({
      channelId: f().textChannelId,
      content: 'Two steps:\n```python\ntotal = 6 * 7\n```\nthen\n```python\nprint("total", total)\n```',
    });
    const interaction = f().messageCommand({ name: 'Run code', target, user: bob });
    await postedIn(String(target.id), 'total 42');
    const told = await f().waitForRequest(
      (r) => r.method === 'PATCH' && r.path.endsWith(`/${String(interaction.token)}/messages/@original`),
    );
    expect(told.json.content).toBe(`Running that message's code in <#${String(target.id)}>.`);
    const runs = auditLines().filter((l) => l.kind === 'run' && l.user === bob.id);
    expect(runs).toHaveLength(2);
    for (const line of runs) expect(line).toMatchObject({ origin: 'user', source: 'message', sourceAuthor: 'other' });
    expect(bot.llm.requests).toHaveLength(0);
  }, 120_000);

  it('Run code on a message without code says so in its thread; in a channel the bot cannot see, privately', async () => {
    const words = f().userMessage({ channelId: f().textChannelId, content: 'lunch at noon?' });
    f().messageCommand({ name: 'Run code', target: words, user: bob });
    await postedIn(String(words.id), 'That message has no code block to run');
    const hidden = payloads.message({
      channelId: f().hiddenChannelId,
      guildId: f().guildId,
      author: f().human,
      content: '```python\nprint(1)\n```',
    });
    const interaction = f().messageCommand({ name: 'Run code', target: hidden, user: bob });
    const told = await f().waitForRequest(
      (r) => r.method === 'PATCH' && r.path.endsWith(`/${String(interaction.token)}/messages/@original`),
    );
    expect(String(told.json.content)).toContain('I cannot read this channel or start threads in it');
  }, 120_000);

  it('eve, without direct-mode rights, is refused privately before anything is acknowledged or started', async () => {
    const target = f().userMessage({ channelId: f().textChannelId, content: '```python\nprint("eve")\n```' });
    const before = auditLines().filter((l) => l.kind === 'run').length;
    const interaction = f().messageCommand({ name: 'Run code', target, user: eve });
    const callback = await f().waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/interactions/${String(interaction.id)}/${String(interaction.token)}/callback`,
    );
    // The refusal is the interaction's first answer (type 4), ephemeral (flags 64): the channel sees nothing.
    expect(callback.json).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(String(callback.json.data.content)).toContain('Running your own code directly is not enabled for you');
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      f().requests.filter((r) => r.path === `/channels/${f().textChannelId}/messages/${String(target.id)}/threads`),
    ).toHaveLength(0);
    expect(auditLines().filter((l) => l.kind === 'run')).toHaveLength(before);
  }, 60_000);

  it("Run code on ada's message with an attached script and no blocks runs the script for bob", async () => {
    const script = f().hostAttachment('hello.js', Buffer.from('console.log("from js", 20 + 22)\n'), 'text/javascript');
    const target = f().userMessage({ channelId: f().textChannelId, content: 'my script', attachments: [script] });
    f().messageCommand({ name: 'Run code', target, user: bob });
    await postedIn(String(target.id), 'from js 42');
    const line = auditLines().find((l) => l.kind === 'run' && l.user === bob.id && l.source === 'attachment');
    expect(line).toMatchObject({ language: 'javascript', sourceAuthor: 'other' });
  }, 120_000);

  it('a mention with "run" and an attached script runs it with the other attachment in /mnt/data', async () => {
    const script = f().hostAttachment(
      'count.py',
      Buffer.from("print(len(open('rows.csv').readlines()))\n"),
      'text/x-python',
    );
    const data = f().hostAttachment('rows.csv', Buffer.from('a\n1\n2\n3\n'), 'text/csv');
    const msg = f().userMessage({
      channelId: f().textChannelId,
      content: `<@${f().bot.id}> run`,
      mentionBot: true,
      attachments: [script, data],
    });
    const reply = await postedIn(String(msg.id), '4');
    expect(String(reply.json.content)).toMatch(/\b4\b/);
  }, 120_000);
});

describe('Slack through threadlab start (Socket Mode)', () => {
  const s = () => bot.slack;
  /** Waits for `text` in thread `ts`; a timeout says what the thread, the Slack calls and the bot's log held. */
  const inThread = (ts: string, text: string) =>
    s()
      .waitFor(() => s().state.messages.find((m) => m.thread_ts === ts && !m.deleted && m.text.includes(text)), {
        what: `"${text}" in thread ${ts}`,
        timeoutMs: 90_000,
      })
      .catch((error: unknown) => {
        const thread = s().state.messages.filter((m) => m.thread_ts === ts || m.ts === ts);
        const calls = s()
          .calls.slice(-15)
          .map((c) => `${c.method} ${JSON.stringify(c.args).slice(0, 200)}`);
        throw new Error(
          `${String(error)}\nthread: ${JSON.stringify(thread).slice(0, 3000)}\nlast calls:\n${calls.join('\n')}` +
            `\nbot output (tail):\n${bot.process.output().slice(-4000)}`,
        );
      });

  it("Run in Threadlab runs another person's code block in the message's thread for the invoker", async () => {
    const parts = [{ text: 'try:' }, { code: 'python\nprint(sum(range(10)) < 100, sum(range(10)))' }];
    const ts = nextTs();
    await s().interact(
      messageShortcut({
        callbackId: RUN_SHORTCUT_CALLBACK_ID,
        message: { ts, user: 'U0AUTHOR9', text: richTextFallback(parts), blocks: [richText(parts)] },
        userId: USER_ID,
        responseUrl: s().responseUrl('shipped-run'),
      }),
    );
    await inThread(ts, `<@${USER_ID}> asked me to run the code of this message.`);
    await inThread(ts, 'True 45');
    const line = auditLines().find((l) => l.kind === 'run' && l.user === USER_ID && l.source === 'message');
    expect(line).toMatchObject({ platform: 'slack', sourceAuthor: 'other' });
  }, 120_000);

  it('an invoker without direct-mode rights is refused privately, and nothing runs or is posted', async () => {
    const ts = nextTs();
    const before = auditLines().filter((l) => l.kind === 'run').length;
    await s().interact(
      messageShortcut({
        callbackId: RUN_SHORTCUT_CALLBACK_ID,
        message: { ts, user: USER_ID, text: '```print("nope")```' },
        userId: NO_DIRECT,
        responseUrl: s().responseUrl('shipped-refused'),
      }),
    );
    const notice = await s().waitFor(
      () =>
        s()
          .callsTo('chat.postEphemeral')
          .find((c) => c.args.user === NO_DIRECT),
      { what: 'the private refusal', timeoutMs: 30_000 },
    );
    expect(String(notice.args.text)).toContain('Running your own code directly is not enabled for you');
    await new Promise((r) => setTimeout(r, 1000));
    expect(s().state.messages.filter((m) => m.thread_ts === ts)).toHaveLength(0);
    expect(auditLines().filter((l) => l.kind === 'run')).toHaveLength(before);
  }, 60_000);

  it('a channel the bot is not in: the invoker hears how to invite it, through the response_url', async () => {
    s().state.channelsWithoutBot.add('C0PRIVATE9');
    await s().interact(
      messageShortcut({
        callbackId: RUN_SHORTCUT_CALLBACK_ID,
        channel: 'C0PRIVATE9',
        message: { user: 'U0AUTHOR9', text: '```print(1)```' },
        userId: USER_ID,
        responseUrl: s().responseUrl('shipped-private'),
      }),
    );
    const response = await s().waitFor(() => s().state.responses.find((r) => r.id === 'shipped-private'), {
      what: 'the response_url answer',
      timeoutMs: 30_000,
    });
    expect(JSON.stringify(response.body)).toContain('/invite @Threadlab');
  }, 60_000);

  const mentionRun = async (files: Record<string, unknown>[]): Promise<string> => {
    const event = appMention({ text: `<@${BOT_USER_ID}> run`, files: files as never });
    await s().socket.send('events_api', eventCallback(event));
    return event.ts as string;
  };

  it('a mention with "run" and an attached notebook runs its code cells in order', async () => {
    const file = s().addFile({
      id: 'FNOTEBOOK1',
      name: 'totals.ipynb',
      mimetype: 'application/json',
      data: notebook(['xs = [3, 4, 5]\n', 'print("sum", sum(xs))']),
    });
    const ts = await mentionRun([file]);
    await inThread(ts, 'sum 12');
    await inThread(ts, 'Running the 2 code cells of `totals.ipynb` in order (1 markdown or raw cell skipped)');
  }, 120_000);

  it('a script over THREADLAB_SCRIPT_MAX_KB and an invalid notebook are refused with what to do', async () => {
    const big = s().addFile({
      id: 'FBIGSCRIPT',
      name: 'big.py',
      mimetype: 'text/x-python',
      data: Buffer.from(`print(1)\n${'# padding\n'.repeat(SCRIPT_MAX_KB * 110)}`),
    });
    const ts = await mentionRun([big]);
    await inThread(ts, `the ${SCRIPT_MAX_KB}.0 KB a script may have (THREADLAB_SCRIPT_MAX_KB)`);
    const bad = s().addFile({
      id: 'FBADNB',
      name: 'broken.ipynb',
      mimetype: 'application/json',
      data: Buffer.from('{"cells": ['),
    });
    const ts2 = await mentionRun([bad]);
    await inThread(ts2, '`broken.ipynb` is not a notebook I can run: it is not valid JSON');
  }, 120_000);
});

describe('the web chat through threadlab start (upload API)', () => {
  const web = new WebClientForTests(() => bot.webUrl);

  it('"run" with an attached bash script and a data file runs the script in bash', async () => {
    const thread = await web.createThread();
    await web.post(thread, {
      text: 'run',
      attachments: [
        { name: 'words.txt', mime: 'text/plain', data: Buffer.from('one two three\nfour\n') },
        { name: 'count.sh', mime: 'application/x-sh', data: Buffer.from('wc -w < words.txt | tr -d " "\n') },
      ],
    });
    const reply = await web.waitForAnswer(thread, 90_000);
    expect(reply.text).toMatch(/\b4\b/);
  }, 120_000);

  it('in the browser: a notebook and a CSV picked in the page, sent with "run", run the cells over the CSV', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors = watchPageErrors(page);
      await openNewThread(page, bot.webUrl);
      await page.setInputFiles('#file-input', [
        { name: 'sales.csv', mimeType: 'text/csv', buffer: Buffer.from('month,sales\nJan,10\nFeb,14\n') },
        {
          name: 'report.ipynb',
          mimeType: 'application/x-ipynb+json',
          buffer: notebook([
            'import csv\nrows = list(csv.DictReader(open("sales.csv")))\n',
            'print("total", sum(int(r["sales"]) for r in rows))',
          ]),
        },
      ]);
      await page.fill('#text', 'run');
      await page.click('#send');
      const reply = page.locator('article.msg.bot').first();
      await reply.waitFor({ timeout: 90_000 });
      // The live progress shows the cells as they run; the answer replaces it with the note and the output.
      await expect
        .poll(async () => reply.textContent(), { timeout: 60_000 })
        .toContain('Running the 2 code cells of report.ipynb');
      expect(await reply.textContent()).toContain('total 24');
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 150_000);

  it('"run" with several scripts asks which one, and runs nothing', async () => {
    const thread = await web.createThread();
    await web.post(thread, {
      text: 'run',
      attachments: [
        { name: 'a.py', mime: 'text/x-python', data: Buffer.from('print("a")\n') },
        { name: 'b.js', mime: 'text/javascript', data: Buffer.from('console.log("b")\n') },
      ],
    });
    const reply = await web.waitForAnswer(thread, 30_000);
    expect(reply.text).toContain('Several scripts are attached');
    expect(reply.text).toContain('`run a.py`');
  }, 60_000);
});
