import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord, payloads } from '../../fakes/fake-discord/index.js';
import { startDiscordBot, type DiscordBotRig } from './bot-rig.js';
const code = (body: string) => `\`\`\`python\n${body}\n\`\`\``;

describe('Discord: editing a message re-runs it (discord.js against the fake, the real core (Bot) and Docker)', () => {
  let fake: FakeDiscord;

  let rig: DiscordBotRig | undefined;
  beforeAll(async () => {
    rig = await startDiscordBot('edit');
    ({ fake } = rig);
  }, 120_000);

  afterAll(async () => {
    await rig?.stop();
  });

  /** The bot's answers in a channel: not its live statuses (they carry the Stop button). */
  const botMessages = (channelId: string) =>
    [...fake.messages.values()].filter(
      (m) =>
        m.channel_id === channelId &&
        (m.author as { id: string }).id === fake.bot.id &&
        ((m.components as unknown[] | undefined) ?? []).length === 0,
    );
  const waitFor = async <T>(find: () => T | undefined, what: string, timeoutMs = 60_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const answerWith = (channelId: string, text: string) =>
    waitFor(() => botMessages(channelId).find((m) => String(m.content).includes(text)), `an answer with ${text}`);
  const patchesOf = (channelId: string, id: string) =>
    fake.requests.filter((r) => r.method === 'PATCH' && r.path === `/channels/${channelId}/messages/${id}`);

  it('an edit (a partial MESSAGE_UPDATE) updates the latest answer in place; an older one is answered anew', async () => {
    const mention = `<@${fake.bot.id}> `;
    const original = fake.userMessage({
      channelId: fake.textChannelId,
      content: mention + code('print(6 * 7)'),
      mentionBot: true,
    });
    const threadId = String(original.id); // a thread started from a message has the message's id
    const first = await answerWith(threadId, '\n42\n');

    fake.editMessage(original, mention + code('print(6 * 8)'), { partial: true });
    await waitFor(
      () => String(fake.messages.get(String(first.id))?.content).includes('\n48\n') || undefined,
      'the edit',
    );
    const edited = fake.messages.get(String(first.id))!;
    expect(String(edited.content)).toContain('Re-ran after your edit');
    expect(patchesOf(threadId, String(first.id)).some((p) => Array.isArray(p.json?.attachments))).toBe(true);
    expect(botMessages(threadId)).toHaveLength(1);

    const followUp = fake.userMessage({ channelId: threadId, content: code('print(1 + 1)') });
    await answerWith(threadId, '\n2\n');
    fake.editMessage(original, mention + code('print(6 * 9)'));
    // The output line, not any '54' (the follow-up's footer may read '⏱ 54 ms').
    const anew = await answerWith(threadId, '\n54\n');
    expect(anew.id).not.toBe(first.id);
    expect(String(anew.content)).toContain('Re-ran your edited message');
    expect(String(fake.messages.get(String(first.id))!.content)).toContain('\n48\n');
    expect(botMessages(threadId)).toHaveLength(3);

    // Another author's claim and an unchanged text are ignored (and so are the bot's own status edits).
    const other = payloads.user(payloads.snowflake(), 'mallory');
    fake.editMessage(followUp, code('print("mallory")'), { author: other });
    fake.editMessage(followUp, code('print("ada")'), { author: fake.human });
    const ada = await answerWith(threadId, 'ada'); // the author's edit of an older message: a new answer
    fake.editMessage(followUp, code('print("ada")'), { partial: true });
    fake.editMessage(original, mention + code('print("last")'));
    await answerWith(threadId, 'last');
    expect(botMessages(threadId).filter((m) => String(m.content).includes('mallory'))).toHaveLength(0);
    expect(botMessages(threadId).filter((m) => String(m.content).includes('ada'))).toHaveLength(1);
    expect(patchesOf(threadId, String(ada.id))).toHaveLength(0);
  });
});
