/**
 * The query step on Slack and Discord through `threadlab start` (issue 38): the fake Slack (Socket Mode) and Discord,
 * the fake OpenAI-compatible model, the real Docker sandbox and a real PostgreSQL named by THREADLAB_SOURCES_FILE.
 * The scripted model lists the sources, queries revenue by region, plots it and answers. What each platform was sent
 * while the turn ran is read from the fakes' records of every call (not from the last state, which a quick next step
 * overwrites): Slack's status message and its task cards, Discord's status message and its PATCHed edits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLiveStatus } from '../../fakes/fake-discord/index.js';
import type { ChatRequestBody, FakeReply } from '../../fakes/fake-openai-server.js';
import { appMention, BOT_USER_ID, eventCallback, messageEvent, nextTs } from '../../fakes/fake-slack/index.js';
import { startPostgres, writeSourcesFile, type PrivatePostgres } from '../../support/postgres-server.js';
import { ShippedBot } from '../shipped/shipped-bot.js';
import { REVENUE_QUESTION, REVENUE_SQL, revenueModel } from './revenue-model.js';

const bot = new ShippedBot({ slack: true, discord: true });
let pg: PrivatePostgres;
/** The line every surface shows for the finished query, up to its size and time. */
const QUERY_DONE = /Query on sales: 6 rows \([\d.]+ (B|KB)\) in [\d.]+ m?s → `revenue`/;

beforeAll(async () => {
  pg = await startPostgres();
  const source = {
    name: 'sales',
    kind: 'postgres',
    url: pg.urlFor(pg.reader),
    passwordEnv: 'SALES_DB_PASSWORD',
  } as const;
  const sourcesFile = writeSourcesFile(bot.dataDir, [source]);
  await bot.start({ THREADLAB_SOURCES_FILE: sourcesFile, SALES_DB_PASSWORD: pg.reader.password });
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
  await pg?.stop();
}, 60_000);

/**
 * The revenue model, its plot made to take 2 s: a turn quicker than the status's first write (about a second) gets
 * no status at all, and this one must have one to show the query in.
 */
const slowPlot = (body: ChatRequestBody): FakeReply => {
  const reply = revenueModel(body);
  if (reply.kind !== 'message' || reply.toolCalls?.[0]?.name !== 'run_code') return reply;
  const args = JSON.parse(reply.toolCalls[0].arguments) as { code: string };
  const code = `import time\ntime.sleep(2)\n${args.code}`;
  return { ...reply, toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ ...args, code }) }] };
};
/** The four model requests of the revenue question: list, query, plot, answer. */
const scriptRevenue = () => bot.llm.push(slowPlot, slowPlot, slowPlot, slowPlot);
const TOP = /Revenue by region is in the chart: .* leads with/;

describe('Slack shows the query step', () => {
  const answerIn = (ts: string) =>
    bot.slack.waitFor(
      () => bot.slack.state.messages.find((m) => m.thread_ts === ts && !m.deleted && TOP.test(m.text)),
      { what: `the answer in thread ${ts}`, timeoutMs: 90_000 },
    );

  it("in a channel: the status message's writes show the finished query: source, rows, size, time and DataFrame", async () => {
    scriptRevenue();
    const event = appMention({ text: `<@${BOT_USER_ID}> ${REVENUE_QUESTION}` });
    await bot.slack.socket.send('events_api', eventCallback(event));
    const ts = event.ts as string;
    await answerIn(ts);
    const writes = bot.slack.state.calls
      .filter((c) => c.method === 'chat.postMessage' || c.method === 'chat.update')
      .filter((c) => c.args.thread_ts === ts || c.method === 'chat.update')
      .map((c) => JSON.stringify(c.args.blocks ?? c.args.text));
    const shown = writes.filter((w) => w.includes('Query on sales'));
    expect(shown.length, `status writes: ${writes.join('\n')}`).toBeGreaterThan(0);
    expect(shown.some((w) => QUERY_DONE.test(w))).toBe(true);
  });

  it('in an assistant thread: a task card for the query, its SQL and its result, beside the run', async () => {
    scriptRevenue();
    const root = nextTs();
    const dm = 'D0SOURCES1';
    await bot.slack.socket.send(
      'events_api',
      eventCallback(messageEvent({ text: REVENUE_QUESTION, channel: dm, channel_type: 'im', thread_ts: root })),
    );
    await answerIn(root);
    const stream = bot.slack.state.streams.find((s) => s.threadTs === root);
    expect(stream, 'the answer was streamed with task cards').toBeDefined();
    const cards = stream!.chunks.filter((c) => c.type === 'task_update');
    const query = cards.filter((c) => c.title === 'Query 1: sales');
    expect(query.length).toBeGreaterThan(0);
    expect(query[0]).toMatchObject({ details: REVENUE_SQL });
    expect(query.at(-1)).toMatchObject({ status: 'complete' });
    expect(String(query.at(-1)!.output)).toMatch(QUERY_DONE);
    expect(cards.some((c) => String(c.title).startsWith('Run '))).toBe(true);
  });
});

describe('Discord shows the query step', () => {
  it("the status message's edits show the finished query: source, rows, size, time and DataFrame", async () => {
    scriptRevenue();
    const msg = bot.discord.userMessage({
      channelId: bot.discord.textChannelId,
      content: `<@${bot.discord.bot.id}> ${REVENUE_QUESTION}`,
      mentionBot: true,
    });
    const threadId = String(msg.id);
    await bot.discord.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        !isLiveStatus(r.json) &&
        TOP.test(String(r.json?.content)),
      90_000,
    );
    const edits = bot.discord.requests
      .filter((r) => r.method === 'PATCH' && r.path.startsWith(`/channels/${threadId}/messages/`))
      .map((r) => String(r.json?.content));
    const statuses = [
      ...bot.discord.requests
        .filter((r) => r.method === 'POST' && r.path === `/channels/${threadId}/messages` && isLiveStatus(r.json))
        .map((r) => String(r.json?.content)),
      ...edits,
    ];
    expect(edits.length).toBeGreaterThan(0);
    const shown = statuses.filter((s) => s.includes('Query on sales') || s.includes('Querying sales'));
    expect(shown.length, `status writes:\n${statuses.join('\n---\n')}`).toBeGreaterThan(0);
    expect(shown.some((s) => QUERY_DONE.test(s))).toBe(true);
  });
});
