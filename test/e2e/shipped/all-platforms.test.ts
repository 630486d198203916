/**
 * The product as shipped: one `threadlab start` child process with Slack (Socket Mode), Discord and
 * the web chat all configured, so every adapter module is loaded together as in production (the undici
 * copies of Slack and Discord meet in one process). For each platform: a mention answered, an uploaded
 * spreadsheet analysed with a chart posted as an image file, and a long output attached as a file.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMention, BOT_USER_ID, CHANNEL_ID, eventCallback } from '../../fakes/fake-slack/index.js';
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
import { ShippedBot } from './shipped-bot.js';
import { WebClientForTests } from './web-client.js';

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
  /** The reply messages posted into the thread (the status message carries the Stop button). */
  const answerIn = (threadId: string, text: string) =>
    bot.discord.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        !(r.json?.components?.length > 0) &&
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

it('one process served all three platforms and every job succeeded', async () => {
  expect(await jobsFinished(bot.process, 9)).toBe(9);
  const metrics = await fetchMetrics(bot.process);
  expect(metricValue(metrics, 'threadlab_errors_total') ?? 0).toBe(0);
  expect(bot.process.isRunning()).toBe(true);
});
