/**
 * Edit to re-run in the product as shipped: one `threadlab start` child process with Slack (Socket Mode)
 * and the web chat; an edited message is run again in the real sandbox and its answer replaced in place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageChanged } from '../../fakes/fake-slack/edit-payloads.js';
import { appMention, BOT_USER_ID, eventCallback } from '../../fakes/fake-slack/index.js';
import { ShippedBot } from './shipped-bot.js';
import { WebClientForTests } from './web-client.js';

const bot = new ShippedBot({ slack: true, web: true });
const code = (body: string) => `\`\`\`python\n${body}\n\`\`\``;

beforeAll(async () => {
  await bot.start();
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

describe('edit to re-run through threadlab start', () => {
  it('Slack: message_changed re-runs the code and the answer is updated with chat.update', async () => {
    const root = appMention({ text: `<@${BOT_USER_ID}> ${code('print(111 * 3)')}` });
    await bot.slack.socket.send('events_api', eventCallback(root));
    // The answer, not the live status (which carries the Stop button and is deleted once answered).
    const answer = await bot.slack.waitFor(
      () =>
        bot.slack.state.messages.find((m) => {
          const blocks = JSON.stringify(m.blocks);
          return m.thread_ts === root.ts && !m.deleted && blocks.includes('333') && !blocks.includes('threadlab_stop');
        }),
      { what: 'the answer with 333', timeoutMs: 90_000 },
    );
    await bot.slack.socket.send(
      'events_api',
      eventCallback(messageChanged(root, { text: `<@${BOT_USER_ID}> ${code('print(111 * 4)')}` })),
    );
    await bot.slack.waitFor(() => JSON.stringify(answer.blocks).includes('444'), {
      what: 'the answer updated in place',
      timeoutMs: 60_000,
    });
    expect(answer.updates).toBeGreaterThan(0);
    expect(bot.slack.callsTo('chat.update').some((c) => c.args.ts === answer.ts)).toBe(true);
  });

  it('web: the edit API re-runs the message and the same answer id holds the new output', async () => {
    const web = new WebClientForTests(() => bot.webUrl);
    const threadId = await web.createThread();
    await web.post(threadId, { text: code('print(222 * 3)') });
    const answer = await web.waitForAnswer(threadId, 90_000);
    expect(JSON.stringify(answer)).toContain('666');
    const user = (await web.messages(threadId)).find((m) => m.role === 'user')!;
    const res = await fetch(`${bot.webUrl}/api/threads/${threadId}/messages/${user.id}/edit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: code('print(222 * 4)') }),
    });
    expect(res.status).toBe(202);
    const deadline = Date.now() + 60_000;
    let bots = (await web.messages(threadId)).filter((m) => m.role === 'bot');
    while (!JSON.stringify(bots).includes('888') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      bots = (await web.messages(threadId)).filter((m) => m.role === 'bot');
    }
    expect(bots.map((m) => m.id)).toEqual([answer.id]);
    expect(JSON.stringify(bots)).toContain('888');
  });
});
