/**
 * Slack's assistant surfaces through `threadlab start` (the real composition root, Socket Mode, the
 * real model client against a scripted model, the real sandbox): a new assistant thread gets the
 * suggested prompts; a question in it is answered with the assistant status and a native stream whose
 * one task card shows the real run (its code and printed output), stopped before the answer; a
 * workspace that lacks chat.startStream gets today's updated status message instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantThreadStarted, eventCallback, messageEvent, nextTs, TEAM_ID } from '../../fakes/fake-slack/index.js';
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
  it('suggested prompts for a new assistant thread', async () => {
    const started = assistantThreadStarted({ channel: DM });
    await bot.slack.socket.send('events_api', eventCallback(started));
    const prompts = await bot.slack.waitFor(() => bot.slack.state.suggestedPrompts.find((p) => p.channel === DM), {
      what: 'the suggested prompts',
    });
    expect(prompts.prompts.length).toBeGreaterThan(0);
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
