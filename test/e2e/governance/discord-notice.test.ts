import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../../../adapters/discord/index.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import type { InboundHandler } from '../../../src/ports/platform-adapter.js';
import { FakeDiscord } from '../../fakes/fake-discord/index.js';
import { FAKE_TOKEN, silentLogger } from '../discord/harness.js';

/**
 * The Discord adapter's private notice on a slash command that was already deferred publicly (a handler
 * without the access pre-check, or a refusal only the core's own check made): the public "thinking…"
 * placeholder is deleted and the notice follows ephemerally, through the real discord.js client.
 */
describe('Discord private notice after a public deferral', () => {
  const fake = new FakeDiscord();
  const received: InboundMessage[] = [];
  const handler: InboundHandler = {
    onMessage: async (message) => void received.push(message),
    onCancel: async () => undefined,
  };
  let adapter: DiscordAdapter;

  beforeAll(async () => {
    await fake.start();
    adapter = new DiscordAdapter({
      token: FAKE_TOKEN,
      applicationId: fake.applicationId,
      apiUrl: fake.apiUrl,
      maxUploadBytes: 10 * 1024 * 1024,
      logger: silentLogger(),
    });
    await adapter.start(handler);
  });

  afterAll(async () => {
    await adapter?.stop();
    await fake.stop();
  });

  it('deletes the deferred placeholder and sends the notice as an ephemeral follow-up', async () => {
    const interaction = fake.slashCommand({ name: 'run', options: [{ name: 'code', type: 3, value: 'print(1)' }] });
    const token = String(interaction.token);
    await fake.waitForRequest((r) => r.path === `/interactions/${String(interaction.id)}/${token}/callback`);
    await fake.waitForRequest(() => received.length === 1);
    expect(await adapter.notifyPrivately(received[0]!, 'Not here, sorry.')).toBe(true);
    const webhook = `/webhooks/${fake.applicationId}/${token}`;
    const deleted = fake.requests.findIndex((r) => r.method === 'DELETE' && r.path === `${webhook}/messages/@original`);
    const followUp = fake.requests.findIndex((r) => r.method === 'POST' && r.path === webhook);
    expect(deleted).toBeGreaterThan(-1);
    expect(followUp).toBeGreaterThan(deleted);
    expect(fake.requests[followUp]!.json).toMatchObject({ content: 'Not here, sorry.', flags: 64 });
    expect(fake.requests[followUp]!.json.allowed_mentions).toEqual({ parse: [] });
  });

  it('a message whose author accepts no DMs: false, so the core says it in the thread', async () => {
    fake.dmsClosed.add(fake.human.id);
    fake.userMessage({ channelId: fake.dmChannelId, content: 'hello' });
    await fake.waitForRequest(() => received.length === 2);
    expect(await adapter.notifyPrivately(received[1]!, 'Not here, sorry.')).toBe(false);
    const open = fake.requests.find((r) => r.method === 'POST' && r.path === '/users/@me/channels');
    expect(open?.json).toEqual({ recipient_id: fake.human.id });
  });
});
