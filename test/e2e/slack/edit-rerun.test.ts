import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageChanged } from '../../fakes/fake-slack/edit-payloads.js';
import {
  appMention,
  BOT_USER_ID,
  FakeSlack,
  messageEvent,
  type FakeSlackMessage,
} from '../../fakes/fake-slack/index.js';
import { SlackTransport } from './transport.js';
import { startSlackBot, type SlackBotRig } from './bot-rig.js';
const code = (body: string) => `\`\`\`python\n${body}\n\`\`\``;

describe('Slack: editing a message re-runs it (bolt in Socket Mode, the real core (Bot) and DockerSandbox)', () => {
  let fake: FakeSlack;
  let send: SlackTransport;

  let rig: SlackBotRig | undefined;
  beforeAll(async () => {
    rig = await startSlackBot('edit', { retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 50 } });
    ({ fake, send } = rig);
  }, 120_000);

  afterAll(async () => {
    await rig?.stop();
  });

  /** The bot's answers in a thread: not its live status (with the Stop button, deleted once answered). */
  const answers = (threadTs: string): FakeSlackMessage[] =>
    fake.state.messages.filter(
      (m) => m.thread_ts === threadTs && !m.deleted && !JSON.stringify(m.blocks).includes('threadlab_stop'),
    );
  const shows = (m: FakeSlackMessage, text: string) => JSON.stringify(m.blocks).includes(text) || m.text.includes(text);
  const waitAnswer = (threadTs: string, text: string, what: string) =>
    fake.waitFor(() => answers(threadTs).find((m) => shows(m, text)), { what, timeoutMs: 60_000 });

  it('an edit of the latest exchange updates the answer in place with chat.update; an older one is answered anew', async () => {
    const root = appMention({ text: `<@${BOT_USER_ID}> ${code('print(6 * 7)')}` });
    await send.event(root);
    const first = await waitAnswer(root.ts as string, '42', 'the first answer');

    await send.event(messageChanged(root, { text: `<@${BOT_USER_ID}> ${code('print(6 * 8)')}` }));
    await fake.waitFor(() => first.updates > 0 && shows(first, '48'), { what: 'the answer updated to 48' });
    expect(shows(first, 'Re-ran after your edit')).toBe(true);
    expect(answers(root.ts as string)).toHaveLength(1);
    const update = fake.callsTo('chat.update').find((c) => c.args.ts === first.ts);
    expect(update?.args.channel).toBe(root.channel);

    const followUp = messageEvent({ text: code('print(1 + 1)'), thread_ts: root.ts as string });
    await send.event(followUp);
    await waitAnswer(root.ts as string, '2\\n', 'the follow-up answer');
    const before = answers(root.ts as string).length;

    // The root is no longer the latest exchange: its re-run is a new answer that names it.
    await send.event(messageChanged(root, { text: `<@${BOT_USER_ID}> ${code('print(6 * 9)')}` }));
    const anew = await waitAnswer(root.ts as string, '54', 'the new answer to the older edit');
    expect(anew.ts).not.toBe(first.ts);
    expect(shows(anew, 'Re-ran your edited message')).toBe(true);
    expect(shows(first, '48')).toBe(true); // the earlier answer stands
    expect(answers(root.ts as string)).toHaveLength(before + 1);
  });

  it("ignores the bot's own edit, another user's edit and an unchanged text; the author's next edit runs once", async () => {
    const root = appMention({ text: `<@${BOT_USER_ID}> ${code('print("one")')}` });
    await send.event(root);
    const answer = await waitAnswer(root.ts as string, 'one', 'the answer');
    const answerEvent = { ...answer, user: BOT_USER_ID, channel: root.channel };

    await send.event(messageChanged(answerEvent, { text: 'the bot edited this', bot: true }));
    await send.event(messageChanged(root, { text: `<@${BOT_USER_ID}> ${code('print("admin")')}`, editor: 'U0ADMIN1' }));
    await send.event(messageChanged(root, { text: root.text as string }));
    await send.event(messageChanged(root, { text: `<@${BOT_USER_ID}> ${code('print("two")')}` }));
    await fake.waitFor(() => shows(answer, 'two'), { what: "the author's edit" });
    // Thread order: anything the ignored edits had started would have run before this one.
    await new Promise((r) => setTimeout(r, 300));
    expect(answer.updates).toBe(1);
    expect(answers(root.ts as string)).toHaveLength(1);
    expect(shows(answer, 'admin')).toBe(false);
  });

  it('an edit sent while the original is still running is queued after it and then updates its answer', async () => {
    const root = appMention({ text: `<@${BOT_USER_ID}> ${code('import time\ntime.sleep(2)\nprint("v1")')}` });
    await send.event(root);
    await fake.waitFor(() => fake.state.messages.some((m) => m.thread_ts === root.ts), {
      what: 'the status',
      timeoutMs: 60_000,
    });
    await send.event(messageChanged(root, { text: `<@${BOT_USER_ID}> ${code('print("v2")')}` }));
    // The original's answer may be replaced by the re-run before a poll of the live messages sees it: the
    // calls record that it was posted with v1 first, and then updated in place to v2.
    await fake.waitFor(
      () =>
        fake.state.calls.some(
          (c) =>
            c.method === 'chat.postMessage' && c.args.thread_ts === root.ts && JSON.stringify(c.args).includes('v1'),
        ),
      { what: 'the original answer', timeoutMs: 60_000 },
    );
    const answer = await waitAnswer(root.ts as string, 'v2', 'the answer updated by the edit');
    expect(answer.updates).toBeGreaterThan(0);
    expect(answers(root.ts as string)).toHaveLength(1);
  });
});
