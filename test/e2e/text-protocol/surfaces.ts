import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { isLiveStatus, type FakeDiscord, type RecordedRequest } from '../../fakes/fake-discord/index.js';
import type { RecordedChatRequest, FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { appMention, BOT_USER_ID, type FakeSlack, type FakeSlackMessage } from '../../fakes/fake-slack/index.js';
import { decodedSize, openNewThread, threadIdOf } from '../web/browser.js';
import { expectChartPng, expectNoProtocolText, FIX_AFTER_ERROR, QUESTION, SALES_CSV } from './scenario.js';

/**
 * The fix-after-error question on each surface, and how each shows a reply, read back from the fakes and the
 * page: the in-process rigs and `threadlab start` ask it the same way. Each turn helper expects the model to
 * be scripted with FIX_AFTER_ERROR_REPLIES, checks what the surface showed and returns the model requests
 * the turn made, for the caller to check against its protocol setting.
 */

/** Slack as a test drives it: the fake, and how an event reaches the bot (Socket Mode). */
export interface SlackSurface {
  fake: FakeSlack;
  send: (event: Record<string, unknown>) => Promise<void>;
}

/** Mentions the bot, in a new thread or in `threadTs`; returns the thread's ts. */
export async function slackMention(
  slack: SlackSurface,
  text: string,
  o: { threadTs?: string; files?: unknown[] } = {},
): Promise<string> {
  const event = appMention({
    text: `<@${BOT_USER_ID}> ${text}`,
    ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
    ...(o.files ? { files: o.files as never } : {}),
  });
  await slack.send(event);
  return (o.threadTs ?? event.ts) as string;
}

export const slackThread = (fake: FakeSlack, ts: string): FakeSlackMessage[] =>
  fake.state.messages.filter((m) => m.thread_ts === ts && !m.deleted);

/** Waits for the message of thread `ts` whose text contains `text`. */
export const slackReplyWith = (fake: FakeSlack, ts: string, text: string, timeoutMs = 60_000) =>
  fake.waitFor(() => slackThread(fake, ts).find((m) => m.text.includes(text)), {
    what: `"${text}" in thread ${ts}`,
    timeoutMs,
  });

/**
 * The text of a Slack reply before its first context line: the answer's sections. The runs' code and the
 * footer follow as context lines and sections of their own (adapters/slack/reply-blocks.ts).
 */
export function answerSectionsOf(message: FakeSlackMessage): string {
  const blocks = message.blocks as { type: string; text?: { text?: string } }[];
  const end = blocks.findIndex((b) => b.type !== 'section');
  return (end < 0 ? blocks : blocks.slice(0, end)).map((b) => b.text?.text ?? '').join('\n');
}

/** The fix-after-error question with sales.csv uploaded, in a new Slack thread. */
export async function slackFixAfterErrorTurn(
  slack: SlackSurface,
  llm: FakeOpenAiServer,
  fileId: string,
): Promise<RecordedChatRequest[]> {
  const { fake } = slack;
  const file = fake.addFile({ id: fileId, name: 'sales.csv', mimetype: 'text/csv', data: Buffer.from(SALES_CSV) });
  const before = llm.requests.length;
  const ts = await slackMention(slack, QUESTION, { files: [file] });

  const answer = await slackReplyWith(fake, ts, FIX_AFTER_ERROR.answer.slice(0, 30));
  const chart = await fake.waitFor(
    () => fake.state.uploads.find((u) => u.completed && u.threadTs === ts && u.filename.endsWith('.png')),
    { what: 'the chart upload', timeoutMs: 30_000 },
  );
  await expectChartPng(chart.bytes!);
  // The answer is the model's last reply, as is; the runs follow in their own blocks, as with tool calls.
  expect(answerSectionsOf(answer)).toBe(FIX_AFTER_ERROR.answer);
  expect(answer.text).toBe(FIX_AFTER_ERROR.answer);
  const everything = JSON.stringify(slackThread(fake, ts));
  expect(everything).not.toContain('[Threadlab]');
  expect(everything).not.toContain('```python');
  expect(everything).toContain('Code 1 · python · error');
  expect(everything).toContain('Code 3 · python · ok');
  return llm.requests.slice(before);
}

/** Mentions the bot in Discord's text channel: it opens a thread from the message, whose id is the message's. */
export function discordMention(
  fake: FakeDiscord,
  content: string,
  attachments?: ReturnType<FakeDiscord['hostAttachment']>[],
): string {
  const message = fake.userMessage({
    channelId: fake.textChannelId,
    content: `<@${fake.bot.id}> ${content}`,
    mentionBot: true,
    ...(attachments ? { attachments } : {}),
  });
  return String(message.id);
}

/** Messages posted into a Discord channel other than the live status (which carries the Stop button). */
export function discordPostsIn(fake: FakeDiscord, channelId: string): RecordedRequest[] {
  return fake.requests.filter(
    (r) =>
      r.method === 'POST' && r.path === `/channels/${channelId}/messages` && r.status === 200 && !isLiveStatus(r.json),
  );
}

/** Waits for the Discord post into `channelId` whose content contains `text`. */
export function discordPostWith(
  fake: FakeDiscord,
  channelId: string,
  text: string,
  timeoutMs = 60_000,
): Promise<RecordedRequest> {
  return fake.waitForRequest(
    (r) =>
      r.method === 'POST' &&
      r.path === `/channels/${channelId}/messages` &&
      !isLiveStatus(r.json) &&
      String(r.json?.content).includes(text),
    timeoutMs,
  );
}

/** A Discord reply's content without the footer line (`-# ⏱ …`) adapters/discord/reply-text.ts adds. */
export function discordAnswerText(post: RecordedRequest): string {
  return String(post.json?.content ?? '')
    .split('\n')
    .filter((line) => !line.startsWith('-# '))
    .join('\n')
    .trim();
}

/** The fix-after-error question with sales.csv attached, in a new Discord thread. */
export async function discordFixAfterErrorTurn(
  fake: FakeDiscord,
  llm: FakeOpenAiServer,
): Promise<RecordedChatRequest[]> {
  const before = llm.requests.length;
  const threadId = discordMention(fake, QUESTION, [
    fake.hostAttachment('sales.csv', Buffer.from(SALES_CSV), 'text/csv'),
  ]);
  const answer = await discordPostWith(fake, threadId, FIX_AFTER_ERROR.answer.slice(0, 30));
  expect(discordAnswerText(answer)).toBe(FIX_AFTER_ERROR.answer);
  const chart = answer.files.find((f) => f.filename.endsWith('.png'));
  expect(chart, 'the chart attached to the answer').toBeDefined();
  await expectChartPng(chart!.data);
  for (const post of discordPostsIn(fake, threadId)) expectNoProtocolText(String(post.json?.content));
  return llm.requests.slice(before);
}

/** How a test reads a web chat thread's stored messages (GET /api/threads/:id/messages). */
export type WebMessagesOf = (threadId: string) => Promise<{ role: string; text: string }[]>;

/**
 * Checks the web chat's bot reply containing `text`, as the page renders it and as the thread stores it:
 * its answer has no code block and nothing of the protocol, and no "[Threadlab]" message shows anywhere.
 */
export async function expectCleanWebReply(page: Page, messagesOf: WebMessagesOf, text: string): Promise<void> {
  const reply = page.locator('article.msg.bot', { hasText: text });
  expect(await reply.locator('.text pre').count()).toBe(0);
  expectNoProtocolText((await reply.locator('.text').textContent()) ?? '');
  expect(await page.locator('#messages').textContent()).not.toContain('[Threadlab]');
  const stored = (await messagesOf(threadIdOf(page))).filter((m) => m.role === 'bot' && m.text.includes(text));
  expect(stored).toHaveLength(1);
  expectNoProtocolText(stored[0]!.text);
}

/** The fix-after-error question with sales.csv uploaded through the page, in a new web chat thread. */
export async function webFixAfterErrorTurn(
  page: Page,
  web: { url: string; messagesOf: WebMessagesOf },
  llm: FakeOpenAiServer,
): Promise<RecordedChatRequest[]> {
  const before = llm.requests.length;
  await openNewThread(page, web.url);
  await page.setInputFiles('#file-input', { name: 'sales.csv', mimeType: 'text/csv', buffer: Buffer.from(SALES_CSV) });
  await page.fill('#text', QUESTION);
  await page.click('#send');

  const reply = page.locator('article.msg.bot', { hasText: FIX_AFTER_ERROR.answer.slice(0, 30) });
  await reply.waitFor({ timeout: 90_000 });
  expect((await reply.locator('.text').textContent())?.trim()).toBe(FIX_AFTER_ERROR.answer);
  const size = await decodedSize(page, 'article.msg.bot img.chart');
  expect(size.width).toBeGreaterThan(100);
  // The three runs are shown as runs (the failed one first), as with tool calls.
  expect(await reply.locator('details.run summary').allTextContents()).toEqual([
    expect.stringMatching(/^python · error/),
    expect.stringMatching(/^python · ok/),
    expect.stringMatching(/^python · ok/),
  ]);
  await expectCleanWebReply(page, web.messagesOf, FIX_AFTER_ERROR.answer);
  await expect.poll(() => page.locator('#status').textContent()).toBe('Done');
  return llm.requests.slice(before);
}
