/**
 * The product as shipped: one `threadlab start` child process with Slack (Socket Mode), Discord and
 * the web chat all configured, so every adapter module is loaded together as in production (the undici
 * copies of Slack and Discord meet in one process). For each platform: a mention answered, an uploaded
 * spreadsheet analysed with a chart posted as an image file, and a long output attached as a file; and 👍/👎 on
 * an answer (Slack's feedback_buttons, Discord's buttons and 👎 comment modal, the web chat's route) acknowledged,
 * written to the audit file and counted in /metrics by model, a changed verdict replacing the earlier one.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeSay } from '../../fakes/fake-openai-server.js';
import { appMention, BOT_USER_ID, CHANNEL_ID, eventCallback, TEAM_ID, USER_ID } from '../../fakes/fake-slack/index.js';
import { feedbackClick } from '../../fakes/fake-slack/feedback-payloads.js';
import { fetchMetrics, jobsFinished, metricValue } from '../roles/processes.js';
import {
  isWholeListing,
  lastToolResult,
  PNG_SIGNATURE,
  salesWorkbook,
  scriptLongOutput,
  scriptMention,
  scriptSpreadsheet,
} from './scenarios.js';
import { feedbackCounts, waitForFeedbackLines } from './feedback-trail.js';
import { ShippedBot } from './shipped-bot.js';
import { WebClientForTests } from './web-client.js';
import { isLiveStatus } from '../../fakes/fake-discord/index.js';

const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const bot = new ShippedBot({ slack: true, discord: true, web: true, runtimeAsShipped: true });

beforeAll(async () => {
  await bot.start();
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

describe('Slack through threadlab start', () => {
  const mention = async (text: string, files?: Record<string, unknown>[]): Promise<string> => {
    const event = appMention({ text: `<@${BOT_USER_ID}> ${text}`, ...(files ? { files: files as never } : {}) });
    await bot.slack.socket.send('events_api', eventCallback(event));
    return event.ts as string;
  };
  const answerIn = (ts: string, text: string) =>
    bot.slack.waitFor(
      () => bot.slack.state.messages.find((m) => m.thread_ts === ts && !m.deleted && m.text.includes(text)),
      { what: `the answer "${text}" in thread ${ts}`, timeoutMs: 60_000 },
    );
  const uploadIn = (ts: string, suffix: string) =>
    bot.slack.waitFor(
      () => bot.slack.state.uploads.find((u) => u.completed && u.threadTs === ts && u.filename.endsWith(suffix)),
      { what: `a ${suffix} file in thread ${ts}`, timeoutMs: 60_000 },
    );

  it('a mention is answered in its thread', async () => {
    const answer = scriptMention(bot.llm, 'slack');
    const ts = await mention('what is 6 times 7?');
    const reply = await answerIn(ts, answer);
    expect(reply.channel).toBe(CHANNEL_ID);
    expect(lastToolResult(bot.llm)).toContain('42');
  });

  it('an uploaded spreadsheet is analysed and its chart posted as a PNG file', async () => {
    const file = bot.slack.addFile({
      id: 'FXLSX1',
      name: 'sales.xlsx',
      mimetype: XLSX_MIME,
      data: await salesWorkbook(),
    });
    const answer = scriptSpreadsheet(bot.llm, 'slack');
    const ts = await mention('chart the revenue in this workbook', [file]);
    const chart = await uploadIn(ts, '.png');
    expect(chart.bytes!.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect((await sharp(chart.bytes!).metadata()).width).toBeGreaterThan(100);
    await answerIn(ts, answer);
    expect(lastToolResult(bot.llm)).toContain('total=54 best=Apr');
  });

  it('a long output is attached as a text file', async () => {
    const answer = scriptLongOutput(bot.llm, 'slack');
    const ts = await mention('list all the rows');
    const listing = await uploadIn(ts, '.txt');
    expect(isWholeListing(listing.bytes!.toString('utf8'))).toBe(true);
    await answerIn(ts, answer);
  });
});

describe('Discord through threadlab start', () => {
  const mention = (content: string, attachments?: ReturnType<typeof bot.discord.hostAttachment>[]): string => {
    const msg = bot.discord.userMessage({
      channelId: bot.discord.textChannelId,
      content: `<@${bot.discord.bot.id}> ${content}`,
      mentionBot: true,
      ...(attachments ? { attachments } : {}),
    });
    return String(msg.id); // the thread started from the message takes its id
  };
  /** The reply messages posted into the thread (the status message carries the Stop button; answers 👍/👎). */
  const answerIn = (threadId: string, text: string) =>
    bot.discord.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        !isLiveStatus(r.json) &&
        String(r.json?.content).includes(text),
      60_000,
    );
  const fileIn = (threadId: string, suffix: string) =>
    bot.discord.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        r.files.some((f) => f.filename.endsWith(suffix)),
      60_000,
    );

  it('a mention opens a thread and is answered there', async () => {
    const answer = scriptMention(bot.llm, 'discord');
    const threadId = mention('what is 6 times 7?');
    const reply = await answerIn(threadId, answer);
    expect(reply.status).toBe(200);
    expect(lastToolResult(bot.llm)).toContain('42');
  });

  it('an uploaded spreadsheet is analysed and its chart posted as a PNG file', async () => {
    const workbook = bot.discord.hostAttachment('sales.xlsx', await salesWorkbook(), XLSX_MIME);
    const answer = scriptSpreadsheet(bot.llm, 'discord');
    const threadId = mention('chart the revenue in this workbook', [workbook]);
    const posted = await fileIn(threadId, '.png');
    expect(posted.status).toBe(200);
    const chart = posted.files.find((f) => f.filename.endsWith('.png'))!;
    expect(chart.data.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect((await sharp(chart.data).metadata()).width).toBeGreaterThan(100);
    expect(JSON.stringify(posted.json)).toContain(answer);
    expect(lastToolResult(bot.llm)).toContain('total=54 best=Apr');
  });

  it('a long output is attached as a text file', async () => {
    const answer = scriptLongOutput(bot.llm, 'discord');
    const threadId = mention('list all the rows');
    const posted = await fileIn(threadId, '.txt');
    expect(posted.status).toBe(200);
    const listing = posted.files.find((f) => f.filename.endsWith('.txt'))!;
    expect(isWholeListing(listing.data.toString('utf8'))).toBe(true);
    await answerIn(threadId, answer.split(':')[0]!);
  });
});

describe('the web chat through threadlab start', () => {
  const web = new WebClientForTests(() => bot.webUrl);

  it('a message is answered', async () => {
    const answer = scriptMention(bot.llm, 'web');
    const thread = await web.createThread();
    await web.post(thread, { text: 'what is 6 times 7?' });
    const reply = await web.waitForAnswer(thread);
    expect(reply.text).toContain(answer);
    expect(lastToolResult(bot.llm)).toContain('42');
  });

  it('an uploaded spreadsheet is analysed and its chart served as a PNG image', async () => {
    const answer = scriptSpreadsheet(bot.llm, 'web');
    const thread = await web.createThread();
    await web.post(thread, {
      text: 'chart the revenue in this workbook',
      attachments: [{ name: 'sales.xlsx', mime: XLSX_MIME, data: await salesWorkbook() }],
    });
    const reply = await web.waitForAnswer(thread);
    expect(reply.text).toContain(answer);
    expect(reply.images?.length).toBeGreaterThan(0);
    const png = await web.download(reply.images![0]!.url);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect((await sharp(png).metadata()).width).toBeGreaterThan(100);
    expect(lastToolResult(bot.llm)).toContain('total=54 best=Apr');
  });

  it('a long output is attached as a text file', async () => {
    const answer = scriptLongOutput(bot.llm, 'web');
    const thread = await web.createThread();
    await web.post(thread, { text: 'list all the rows' });
    const reply = await web.waitForAnswer(thread);
    expect(reply.text).toContain(answer);
    const listing = reply.files?.find((f) => f.name.endsWith('.txt'));
    expect(listing, JSON.stringify(reply)).toBeDefined();
    expect(isWholeListing((await web.download(listing!.url)).toString('utf8'))).toBe(true);
  });
});

/** The model the fake serves (OPENAI_MODEL in ShippedBot), as the answer ledger records it for feedback. */
const MODEL = 'fake-gpt';

describe('feedback on answers through threadlab start', () => {
  it('Slack: 👍, 👍 again and 👎 on an answer are acknowledged privately; the repeat is not counted, the change replaces it', async () => {
    const before = await feedbackCounts(bot.process, MODEL);
    bot.llm.push(fakeSay('slack feedback: the mean of 1 to 8 is 4.5.'));
    const event = appMention({ text: `<@${BOT_USER_ID}> what is the mean of 1 to 8?` });
    await bot.slack.socket.send('events_api', eventCallback(event));
    const ts = event.ts as string;
    const answer = await bot.slack.waitFor(
      () =>
        bot.slack.state.messages.find(
          (m) => m.thread_ts === ts && !m.deleted && JSON.stringify(m.blocks).includes('"feedback_buttons"'),
        ),
      { what: 'the answer with its feedback buttons', timeoutMs: 60_000 },
    );
    expect(answer.text).toContain('the mean of 1 to 8 is 4.5');
    const click = (verdict: 'good' | 'bad', value?: string) =>
      bot.slack.socket.send(
        'interactive',
        feedbackClick({
          verdict,
          messageTs: answer.ts,
          threadTs: ts,
          responseUrl: bot.slack.responseUrl(),
          ...(value ? { value } : {}),
        }),
      );
    const acks = () =>
      bot.slack.callsTo('chat.postEphemeral').filter((c) => c.args.user === USER_ID && c.args.thread_ts === ts);
    await click('good', 'excellent'); // a value of no verdict: dropped
    await click('good');
    await bot.slack.waitFor(() => acks()[0], { what: 'the ack of 👍' });
    await click('good');
    await bot.slack.waitFor(() => acks()[1], { what: 'the ack of 👍 again' });
    await click('bad');
    await bot.slack.waitFor(() => acks()[2], { what: 'the ack of 👎' });
    expect(acks().map((c) => c.args.text)).toEqual([
      expect.stringContaining('glad this answer was useful'),
      expect.stringContaining('glad this answer was useful'),
      'Changed to 👎. Thanks for your feedback.',
    ]);
    const lines = await waitForFeedbackLines(bot.dataDir, 'slack', 2);
    expect(lines.map((l) => [l.user, l.verdict, l.previous, l.model, l.answer])).toEqual([
      [USER_ID, 'good', null, MODEL, `slack:${TEAM_ID}:${CHANNEL_ID}:${ts}`],
      [USER_ID, 'bad', 'good', MODEL, `slack:${TEAM_ID}:${CHANNEL_ID}:${ts}`],
    ]);
    expect(await feedbackCounts(bot.process, MODEL)).toEqual({ good: before.good + 1, bad: before.bad + 1 });
  });

  it('Discord: 👍 is thanked, 👎 opens the comment modal, its submission adds the comment; the change replaces 👍', async () => {
    const before = await feedbackCounts(bot.process, MODEL);
    bot.llm.push(fakeSay('discord feedback: the median of 1 to 8 is 4.5.'));
    const question = bot.discord.userMessage({
      channelId: bot.discord.textChannelId,
      content: `<@${bot.discord.bot.id}> what is the median of 1 to 8?`,
      mentionBot: true,
    });
    const threadId = String(question.id);
    const posted = await bot.discord.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        String(r.json?.content).includes('the median of 1 to 8 is 4.5'),
      60_000,
    );
    const ids = JSON.stringify(posted.json?.components ?? []).match(/threadlab_feedback:(good|bad):[^"]+/g) ?? [];
    const ref = `discord:message:${threadId}`;
    expect(ids).toEqual([`threadlab_feedback:good:${ref}`, `threadlab_feedback:bad:${ref}`]);
    const message = [...bot.discord.messages.values()].find(
      (m) => m.channel_id === threadId && String(m.content).includes('the median of 1 to 8'),
    )!;
    const callbackOf = (interaction: Record<string, unknown>) =>
      bot.discord.waitForRequest(
        (r) =>
          r.method === 'POST' &&
          r.path === `/interactions/${String(interaction.id)}/${String(interaction.token)}/callback`,
        15_000,
      );

    const good = await callbackOf(bot.discord.pressButton({ message, customId: ids[0]! }));
    expect(good.json).toMatchObject({ type: 4, data: { content: 'Thanks for the 👍.', flags: 64 } });
    const bad = await callbackOf(bot.discord.pressButton({ message, customId: ids[1]! }));
    expect(bad.json).toMatchObject({ type: 9, data: { custom_id: `threadlab_feedback_comment:${ref}` } });
    const modal = bad.json as { data: { components: { components: { custom_id: string }[] }[] } };
    const inputId = modal.data.components[0]!.components[0]!.custom_id;
    const comment = await callbackOf(
      bot.discord.modalSubmit({
        customId: `threadlab_feedback_comment:${ref}`,
        text: { customId: inputId, value: 'It should say which median (the mean of 4 and 5).' },
        channel: { id: threadId, type: 11, parent_id: bot.discord.textChannelId },
        actionRow: true,
      }),
    );
    expect(comment.json).toMatchObject({
      type: 4,
      data: { content: 'Thanks, your 👎 and comment were recorded.', flags: 64 },
    });

    const lines = await waitForFeedbackLines(bot.dataDir, 'discord', 3);
    expect(lines.map((l) => [l.user, l.verdict, l.previous, l.model, l.answer, l.comment])).toEqual([
      [bot.discord.human.id, 'good', null, MODEL, ref, null],
      [bot.discord.human.id, 'bad', 'good', MODEL, ref, null],
      [bot.discord.human.id, 'bad', 'bad', MODEL, ref, 'It should say which median (the mean of 4 and 5).'],
    ]);
    // The comment rides on the same 👎: written, not counted again.
    expect(await feedbackCounts(bot.process, MODEL)).toEqual({ good: before.good + 1, bad: before.bad + 1 });
  });

  it('web: the route records 👍 then 👎 with a comment, refuses a bad body and an unknown answer', async () => {
    const before = await feedbackCounts(bot.process, MODEL);
    const web = new WebClientForTests(() => bot.webUrl);
    bot.llm.push(fakeSay('web feedback: the range of 1 to 8 is 7.'));
    const thread = await web.createThread();
    await web.post(thread, { text: 'what is the range of 1 to 8?' });
    const answer = await web.waitForAnswer(thread);
    expect(answer.text).toContain('the range of 1 to 8 is 7');
    const give = async (messageId: string, body: unknown) => {
      const res = await fetch(`${bot.webUrl}/api/threads/${thread}/messages/${messageId}/feedback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await give(answer.id, { verdict: 'good' })).toEqual({ status: 200, body: { verdict: 'good' } });
    expect(await give(answer.id, { verdict: 'bad', comment: 'Say it is max minus min.' })).toEqual({
      status: 200,
      body: { verdict: 'bad', previous: 'good' },
    });
    const refused = await give(answer.id, { verdict: 'meh' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/Send .*verdict.*good.*or .*verdict.*bad/);
    expect((await give(answer.id, { verdict: 'bad', comment: 'x'.repeat(501) })).status).toBe(400);
    const unknown = await give('no-such-message', { verdict: 'good' });
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(unknown.body)).toContain('no longer on record');

    const lines = await waitForFeedbackLines(bot.dataDir, 'web', 2);
    expect(lines.map((l) => [l.verdict, l.previous, l.model, l.comment])).toEqual([
      ['good', null, MODEL, null],
      ['bad', 'good', MODEL, 'Say it is max minus min.'],
    ]);
    expect(await feedbackCounts(bot.process, MODEL)).toEqual({ good: before.good + 1, bad: before.bad + 1 });
  });
});

it('one process served all three platforms and every job succeeded', async () => {
  expect(await jobsFinished(bot.process, 12)).toBe(12);
  const metrics = await fetchMetrics(bot.process);
  expect(metricValue(metrics, 'threadlab_errors_total') ?? 0).toBe(0);
  expect(bot.process.isRunning()).toBe(true);
});
