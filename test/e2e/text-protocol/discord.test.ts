/**
 * The text protocol on Discord (THREADLAB_LLM_TOOLS=text): the real discord.js adapter against the fake
 * Discord, the real core (Bot) and Docker sandbox, and the real `openai` client against a scripted model that
 * only ever writes fenced code blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadKey } from '../../../src/domain/thread-key.js';
import { payloads, type FakeDiscord } from '../../fakes/fake-discord/index.js';
import { FakeOpenAiServer, fakeSay } from '../../fakes/fake-openai-server.js';
import { startDiscordBot, type DiscordBotRig } from '../discord/bot-rig.js';
import {
  AFTER_STOP,
  AFTER_STOP_REPLIES,
  expectAfterStopRequests,
  expectFixAfterErrorRequests,
  expectNoProtocolText,
  FIX_AFTER_ERROR_REPLIES,
  SLEEPER,
  SLEEPER_STARTED,
  scriptedTurn,
  STOPPED,
  TEXT_PROTOCOL_ENV,
} from './scenario.js';
import {
  discordAnswerText,
  discordFixAfterErrorTurn,
  discordMention,
  discordPostsIn,
  discordPostWith,
} from './surfaces.js';

describe('the text protocol on Discord (THREADLAB_LLM_TOOLS=text)', () => {
  let rig: DiscordBotRig | undefined;
  let fake: FakeDiscord;
  let llm: FakeOpenAiServer;

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    rig = await startDiscordBot('text-protocol', {
      llm,
      env: TEXT_PROTOCOL_ENV,
    });
    ({ fake } = rig);
  }, 120_000);

  afterAll(async () => {
    await rig?.stop();
    await llm?.stop();
  });

  it('a failing block, its traceback, the fix and a chart: the thread gets the clean answer and the PNG', async () => {
    llm.push(...FIX_AFTER_ERROR_REPLIES.map(fakeSay));
    expectFixAfterErrorRequests(await discordFixAfterErrorTurn(fake, llm));
  });

  it('Stop during a long fenced block ends the turn as stopped and interrupts the run; the thread goes on', async () => {
    const before = llm.requests.length;
    llm.push(fakeSay(SLEEPER));
    const threadId = discordMention(fake, 'wait for the data, then tell me');
    await fake.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path.startsWith(`/channels/${threadId}/messages/`) &&
        String(r.json?.content).includes(SLEEPER_STARTED),
      60_000,
    );
    const status = [...fake.messages.values()].find(
      (m) => m.channel_id === threadId && (m.components as unknown[] | undefined)?.length,
    )!;
    const customId = (status.components as { components: { custom_id: string }[] }[])[0]!.components[0]!.custom_id;
    const key = threadKey({
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.textChannelId,
      thread: threadId,
    });
    expect(customId).toBe(`threadlab_stop:${key}`);
    const pressedAt = Date.now();
    fake.interaction(
      payloads.buttonPress({
        applicationId: fake.applicationId,
        guildId: fake.guildId,
        channel: { id: threadId, type: 11, parent_id: fake.textChannelId },
        user: fake.human,
        customId,
        message: status,
      }),
    );
    const stopped = await discordPostWith(fake, threadId, STOPPED, 20_000);
    const stoppedMs = Date.now() - pressedAt;
    expect(stoppedMs).toBeLessThan(15_000); // not the 30 s run limit, let alone the 120 s sleep
    await fake.waitForRequest(
      (r) => r.method === 'DELETE' && r.path === `/channels/${threadId}/messages/${String(status.id)}`,
      10_000,
    );
    expect(llm.requests.length - before).toBe(1); // the model was not asked again
    const notice = discordAnswerText(stopped);
    expect(notice).toContain('timeout: KeyboardInterrupt');
    expectNoProtocolText(notice);
    process.stderr.write(`[text-protocol discord] Stop → stopped reply in ${stoppedMs} ms\n`);

    // The interpreter survived the interrupt, and the block never got past its sleep.
    const after = await scriptedTurn(llm, AFTER_STOP_REPLIES, () => {
      fake.userMessage({ channelId: threadId, content: 'is phase still set?' });
      return discordPostWith(fake, threadId, AFTER_STOP.answer);
    });
    expectAfterStopRequests(after);
    for (const post of discordPostsIn(fake, threadId)) expectNoProtocolText(String(post.json?.content));
  });
});
