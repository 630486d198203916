/**
 * The text protocol on Slack (THREADLAB_LLM_TOOLS=text): the real bolt adapter in Socket Mode against the
 * fake Slack, the real core (Bot) and Docker sandbox, and the real `openai` client against a scripted model that
 * only ever writes fenced code blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadKey } from '../../../src/domain/thread-key.js';
import { FakeOpenAiServer, fakeSay } from '../../fakes/fake-openai-server.js';
import { buttonPress, CHANNEL_ID, TEAM_ID } from '../../fakes/fake-slack/index.js';
import { startSlackBot, type SlackBotRig } from '../slack/bot-rig.js';
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
  answerSectionsOf,
  slackFixAfterErrorTurn,
  slackMention,
  slackReplyWith,
  slackThread,
  type SlackSurface,
} from './surfaces.js';

describe('the text protocol on Slack (THREADLAB_LLM_TOOLS=text)', () => {
  let rig: SlackBotRig | undefined;
  let slack: SlackSurface;
  let llm: FakeOpenAiServer;

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    rig = await startSlackBot('text-protocol', {
      llm,
      env: TEXT_PROTOCOL_ENV,
    });
    slack = { fake: rig.fake, send: (event) => rig!.send.event(event) };
  }, 120_000);

  afterAll(async () => {
    await rig?.stop();
    await llm?.stop();
  });

  it('a failing block, its traceback, the fix and a chart: the thread gets the clean answer and the PNG', async () => {
    llm.push(...FIX_AFTER_ERROR_REPLIES.map(fakeSay));
    expectFixAfterErrorRequests(await slackFixAfterErrorTurn(slack, llm, 'FTPSALES1'));
  });

  it('Stop during a long fenced block ends the turn as stopped and interrupts the run; the thread goes on', async () => {
    const { fake } = slack;
    const before = llm.requests.length;
    llm.push(fakeSay(SLEEPER));
    const ts = await slackMention(slack, 'wait for the data, then tell me');
    const status = await fake.waitFor(
      () => slackThread(fake, ts).find((m) => JSON.stringify(m.blocks).includes(SLEEPER_STARTED)),
      { what: 'the live status showing the sleeping block’s output', timeoutMs: 60_000 },
    );
    const key = threadKey({ platform: 'slack', workspace: TEAM_ID, channel: CHANNEL_ID, thread: ts });
    expect(JSON.stringify(status.blocks)).toContain(`"value":"${key}"`);
    const pressedAt = Date.now();
    await rig!.send.interaction(
      buttonPress({
        actionId: 'threadlab_stop',
        value: key,
        messageTs: status.ts,
        threadTs: ts,
        responseUrl: fake.responseUrl(),
      }),
    );
    const stopped = await slackReplyWith(fake, ts, STOPPED, 20_000);
    const stoppedMs = Date.now() - pressedAt;
    expect(stoppedMs).toBeLessThan(15_000); // not the 30 s run limit, let alone the 120 s sleep
    await fake.waitFor(() => status.deleted, { what: 'the live status removed', timeoutMs: 10_000 });
    expect(llm.requests.length - before).toBe(1); // the model was not asked again
    const notice = answerSectionsOf(stopped);
    expect(notice).toContain('timeout: KeyboardInterrupt');
    expectNoProtocolText(notice);
    expect(JSON.stringify(slackThread(fake, ts))).not.toContain('[Threadlab]');
    process.stderr.write(`[text-protocol slack] Stop → stopped reply in ${stoppedMs} ms\n`);

    // The interpreter survived the interrupt, and the block never got past its sleep.
    const after = await scriptedTurn(llm, AFTER_STOP_REPLIES, async () => {
      await slackMention(slack, 'is phase still set?', { threadTs: ts });
      await slackReplyWith(fake, ts, AFTER_STOP.answer);
    });
    expectAfterStopRequests(after);
  });
});
