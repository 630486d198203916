/**
 * Slack's assistant surfaces through `threadlab start` (the real composition root, Socket Mode, the
 * real model client against a scripted model, the real sandbox). On the retiring assistant_view: a new
 * assistant thread gets the suggested prompts and the bot says once (log and `threadlab doctor`) how to
 * migrate; a question in it is answered with the assistant status and a native stream whose one task card
 * shows the real run, stopped before the answer; a workspace that lacks chat.startStream gets today's
 * updated status message instead. On agent_view (Slack's Agent messaging experience): opening the Messages
 * tab sets the prompts the way agent apps need (no thread_ts); a top-level DM is answered in its own thread
 * with an agent session (processing, then active); what the user looks at (app_context_changed) reaches the
 * model as one line only for a channel the bot is in. A 429 on chat.postMessage holds the answer for its
 * Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appContextChanged,
  appHomeOpened,
  appMention,
  assistantThreadStarted,
  BOT_USER_ID,
  CHANNEL_ID,
  eventCallback,
  messageEvent,
  nextTs,
  TEAM_ID,
} from '../../fakes/fake-slack/index.js';
import { checkSlackApp } from '../../../cli/doctor.js';
import { MIGRATE_TO_AGENT_VIEW } from '../../../adapters/slack/migration-notice.js';
import { fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { ShippedBot } from './shipped-bot.js';

const bot = new ShippedBot({ slack: true });
const DM = 'D0SHIPPED1';

beforeAll(async () => {
  await bot.start();
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

const ask = async (text: string, threadTs: string, teamId = TEAM_ID): Promise<void> => {
  const event = messageEvent({ text, channel: DM, channel_type: 'im', thread_ts: threadTs });
  await bot.slack.socket.send('events_api', eventCallback(event, { teamId }));
};
const answerCall = (threadTs: string, text: string) =>
  bot.slack.waitFor(
    () =>
      bot.slack.state.calls.find(
        (c) => c.method === 'chat.postMessage' && c.args.thread_ts === threadTs && String(c.args.text).includes(text),
      ),
    { what: `the answer in ${threadTs}`, timeoutMs: 90_000 },
  );

describe('Slack assistant threads through threadlab start', () => {
  it('suggested prompts for a new assistant thread; the bot says once, in its log and doctor, how to migrate', async () => {
    expect(checkSlackApp(bot.dataDir)).toBeUndefined();
    for (let i = 0; i < 2; i += 1) {
      const started = assistantThreadStarted({ channel: DM });
      await bot.slack.socket.send('events_api', eventCallback(started));
    }
    await bot.slack.waitFor(() => bot.slack.state.suggestedPrompts.filter((p) => p.channel === DM).length === 2, {
      what: 'the suggested prompts of both threads',
    });
    const prompts = bot.slack.state.suggestedPrompts.find((p) => p.channel === DM)!;
    expect(prompts.prompts.length).toBeGreaterThan(0);
    expect(prompts.threadTs).not.toBe(''); // assistant_view: the thread's own prompts
    expect(bot.process.output().split(MIGRATE_TO_AGENT_VIEW.slice(0, 60)).length - 1).toBe(1);
    const doctor = checkSlackApp(bot.dataDir);
    expect(doctor).toMatchObject({ status: 'warn', fix: MIGRATE_TO_AGENT_VIEW });
    expect(doctor!.detail).toContain(TEAM_ID);
  });

  it('streams the real run as one task card, stopped before the answer, with the assistant status', async () => {
    const root = nextTs();
    bot.llm.push(fakeRunCode('print(6 * 7)'), fakeSay('shipped stream: six times seven is 42.'));
    await ask('what is 6 times 7?', root);
    const answer = await answerCall(root, 'six times seven is 42');

    const stream = bot.slack.state.streams.find((s) => s.threadTs === root)!;
    expect(stream).toMatchObject({ channel: DM, recipientTeamId: TEAM_ID, streaming: false });
    const calls = bot.slack.state.calls.filter(
      (c) => c.method.endsWith('Stream') && (c.args.thread_ts === root || c.args.ts === stream.ts),
    );
    expect(calls[0]!.method).toBe('chat.startStream');
    expect(calls.at(-1)!.method).toBe('chat.stopStream');
    expect(calls.every((c) => c.status === 200 && c.atMs <= answer.atMs)).toBe(true);
    const cards = stream.chunks.filter((c) => c.type === 'task_update');
    expect([...new Set(cards.map((c) => c.id))]).toEqual(['run-1']);
    expect(cards.at(-1)).toMatchObject({ status: 'complete', details: 'print(6 * 7)' });
    expect(String(cards.at(-1)!.output)).toContain('42');
    expect(bot.slack.state.assistantStatuses.some((s) => s.threadTs === root && s.status !== '')).toBe(true);
  });

  it('a workspace without chat.startStream gets the updated status message', async () => {
    bot.slack.withoutMethod('chat.startStream', 'unknown_method');
    const root = nextTs();
    // A run longer than the status's write interval (1 s): the stream is refused while it runs, and the status
    // message takes its place. (One that ends sooner has only the assistant status before its answer.)
    bot.llm.push(fakeRunCode('import time; time.sleep(2.5); print(6 * 7)'), fakeSay('shipped fallback: 42.'));
    await ask('what is 6 times 7?', root, 'T0OTHER');
    await answerCall(root, 'shipped fallback: 42.');
    const status = bot.slack.state.messages.find(
      (m) => m.thread_ts === root && JSON.stringify(m.blocks).includes('threadlab_stop'),
    );
    expect(status, 'the status message with its Stop button').toBeDefined();
    expect(bot.slack.state.streams.filter((s) => s.threadTs === root)).toEqual([]);
  });
});

describe('Slack agent_view (the Agent messaging experience) through threadlab start', () => {
  const AGENT_TEAM = 'T0AGENTS';
  const AGENT_DM = 'D0AGENT01';
  const sendAgent = (event: Record<string, unknown>) =>
    bot.slack.socket.send('events_api', eventCallback(event, { teamId: AGENT_TEAM }));
  const topLevelDm = async (text: string): Promise<string> => {
    const event = messageEvent({ text, channel: AGENT_DM, channel_type: 'im' });
    await sendAgent(event);
    return event.ts as string;
  };
  const userMessage = (i: number) => {
    const messages = bot.llm.requests[i]!.body.messages as { role: string; content: unknown }[];
    return JSON.stringify(messages.filter((m) => m.role === 'user').at(-1)?.content);
  };

  it('the Messages tab gets suggested prompts set without a thread_ts; the Home tab gets none', async () => {
    bot.slack.state.appView = 'agent_view';
    const before = bot.slack.callsTo('assistant.threads.setSuggestedPrompts').length;
    await sendAgent(appHomeOpened({ channel: AGENT_DM, tab: 'home' }));
    await sendAgent(appHomeOpened({ channel: AGENT_DM }));
    const prompts = await bot.slack.waitFor(
      () => bot.slack.state.suggestedPrompts.find((p) => p.channel === AGENT_DM),
      { what: 'the Messages tab prompts' },
    );
    expect(prompts).toMatchObject({ threadTs: '' });
    expect(prompts.prompts.length).toBeGreaterThan(0);
    const calls = bot.slack.callsTo('assistant.threads.setSuggestedPrompts').slice(before);
    expect(calls.map((c) => [c.args.channel_id, c.args.thread_ts])).toEqual([[AGENT_DM, undefined]]);
  });

  it('a top-level DM is answered in its own thread, with an agent session and the streamed run', async () => {
    bot.slack.state.appView = 'agent_view';
    bot.slack.state.unsupported.delete('chat.startStream'); // the workspace above lacked it; this one streams
    bot.llm.push(fakeRunCode('print(7 * 6)'), fakeSay('agent view: seven times six is 42.'));
    const ts = await topLevelDm('what is 7 times 6?');
    const answer = await bot.slack.waitFor(
      () =>
        bot.slack.state.calls.find(
          (c) => c.method === 'chat.postMessage' && String(c.args.text).includes('seven times six is 42'),
        ),
      { what: 'the answer', timeoutMs: 90_000 },
    );
    expect(answer.args).toMatchObject({ channel: AGENT_DM, thread_ts: ts }); // its own thread, no assistant root
    await bot.slack.waitFor(
      () => bot.slack.state.agentSessions.get(`${AGENT_DM}:${ts}`)?.statuses.at(-1) === 'active',
      {
        what: 'the session made active again',
      },
    );
    const session = bot.slack.state.agentSessions.get(`${AGENT_DM}:${ts}`)!;
    expect(session.statuses).toEqual(['processing', 'active']);
    const processing = bot.slack.callsTo('agents.sessions.setStatus').find((c) => c.args.thread_ts === ts)!;
    expect(processing.atMs).toBeLessThan(answer.atMs);
    expect(processing.args.initiator_user_id).toBe('U0USER01');
    const stream = bot.slack.state.streams.find((s) => s.threadTs === ts)!;
    expect(stream.streaming).toBe(false);
    expect(String(stream.chunks.filter((c) => c.type === 'task_update').at(-1)!.output)).toContain('42');
    expect(bot.slack.callsTo('assistant.threads.setStatus').filter((c) => c.args.thread_ts === ts)).toEqual([]);
    const stopMessages = bot.slack.state.messages.filter(
      (m) => m.thread_ts === ts && JSON.stringify(m.blocks).includes('threadlab_stop'),
    );
    expect(stopMessages).toEqual([]);
  });

  it('what the user looks at reaches the model as one line, only for a channel the bot is in', async () => {
    bot.slack.state.appView = 'agent_view';
    bot.slack.state.channels.set('C0SALES01', { name: 'sales', isMember: true });
    bot.slack.state.channels.set('C0SECRET1', { name: 'secret-plans', isMember: false });
    await sendAgent(appContextChanged({ viewing: 'C0SALES01', channel: AGENT_DM }));
    await new Promise((r) => setTimeout(r, 300)); // the event is handled before the next message
    bot.llm.push(fakeSay('context answer one.'));
    const first = bot.llm.requests.length;
    await topLevelDm('what am I looking at?');
    await bot.slack.waitFor(() => bot.llm.requests.length > first, { what: 'the model request', timeoutMs: 60_000 });
    expect(userMessage(first)).toContain('The user is looking at #sales in Slack.');

    await sendAgent(appContextChanged({ viewing: 'C0SECRET1', channel: AGENT_DM }));
    await new Promise((r) => setTimeout(r, 300));
    bot.llm.push(fakeSay('context answer two.'));
    const second = bot.llm.requests.length;
    await topLevelDm('and now?');
    await bot.slack.waitFor(() => bot.llm.requests.length > second, { what: 'the model request', timeoutMs: 60_000 });
    expect(userMessage(second)).not.toMatch(/looking at|secret|C0SECRET1|#sales/);
    // Never a channel's messages: only its name and membership were asked for.
    expect(
      bot.slack.calls.filter(
        (c) => /^conversations\.(history|replies)$/.test(c.method) && String(c.args.channel).startsWith('C0S'),
      ),
    ).toEqual([]);
  });

  it('a 429 on chat.postMessage holds the next chat.postMessage for its Retry-After', async () => {
    const RETRY_AFTER_SEC = 1;
    const mention = appMention({ text: `<@${BOT_USER_ID}> quick one`, channel: CHANNEL_ID });
    // This thread's post only: a late post of an earlier case must not take the 429.
    bot.slack.failNext('chat.postMessage', {
      status: 429,
      retryAfterSec: RETRY_AFTER_SEC,
      when: (args) => args.thread_ts === mention.ts,
    });
    bot.llm.push(fakeSay('rate limit answer: held.'));
    await bot.slack.socket.send('events_api', eventCallback(mention));
    await bot.slack.waitFor(
      () => bot.slack.state.messages.find((m) => m.thread_ts === mention.ts && m.text.includes('rate limit answer')),
      { what: 'the answer', timeoutMs: 60_000 },
    );
    const posts = bot.slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === mention.ts);
    const refused = posts.findIndex((c) => c.status === 429);
    expect(refused).toBeGreaterThanOrEqual(0);
    const gapMs = posts[refused + 1]!.atMs - posts[refused]!.atMs;
    console.info(`chat.postMessage after a 429 with Retry-After ${RETRY_AFTER_SEC} s: ${gapMs} ms later`);
    expect(gapMs).toBeGreaterThanOrEqual(RETRY_AFTER_SEC * 1000);
  });
});
