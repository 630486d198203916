import { afterEach, describe, expect, it } from 'vitest';
import { textReply } from '../../../src/domain/reply.js';
import { payloads } from '../../fakes/fake-discord/index.js';
import { startHarness, type Harness } from './harness.js';

describe('Discord: slash commands', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('/run is deferred at once, then completed by editing the original reply and a follow-up', async () => {
    let release!: () => void;
    h = await startHarness((m) => {
      const command = m.command;
      const long = 'x'.repeat(1990) + '\n' + 'tail line';
      return textReply(
        command?.name === 'run' ? `ran ${command.language}: ${command.code}\n${long}` : 'other',
        'answer',
      );
    });
    const { fake, handler } = h;
    handler.hold = new Promise<void>((r) => (release = r));
    const dispatchedAtMs = Date.now();
    const interaction = fake.interaction(
      payloads.slashCommand({
        applicationId: fake.applicationId,
        guildId: fake.guildId,
        channel: { id: fake.textChannelId, type: 0 },
        user: fake.human,
        name: 'run',
        options: [
          { name: 'code', type: 3, value: 'echo hi' },
          { name: 'language', type: 3, value: 'bash' },
        ],
        attachmentSizeLimit: 8 * 1024 * 1024,
      }),
    );
    const token = String(interaction.token);
    const defer = await fake.waitForRequest((r) => r.path === `/interactions/${interaction.id}/${token}/callback`);
    expect(defer.json).toMatchObject({ type: 5 });
    expect(defer.atMs - dispatchedAtMs).toBeLessThan(3000);
    await fake.waitForRequest(() => handler.received.length === 1);
    expect(handler.received[0]).toMatchObject({
      command: { name: 'run', language: 'bash', code: 'echo hi' },
      thread: { platform: 'discord', workspace: fake.guildId, channel: fake.textChannelId, thread: fake.textChannelId },
      replyContext: {
        kind: 'interaction',
        interactionToken: token,
        applicationId: fake.applicationId,
        attachmentSizeLimit: 8 * 1024 * 1024,
      },
    });
    // while running, the deferred reply shows the status with a Stop button
    const status = await fake.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path === `/webhooks/${fake.applicationId}/${token}/messages/@original` &&
        r.json?.components?.length > 0,
    );
    expect(status.json.components[0].components[0].custom_id).toMatch(/^threadlab_stop:/);
    release();

    const done = await fake.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path.endsWith('/messages/@original') &&
        String(r.json?.content).startsWith('ran bash'),
    );
    expect(done.json.components).toEqual([]);
    expect(done.headers.authorization).toBeUndefined();
    const follow = await fake.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/webhooks/${fake.applicationId}/${token}`,
    );
    expect(follow.query.wait).toBe('true');
    expect(follow.json.content).toContain('tail line');
  });

  it('maps /reset, /files and /help in a DM', async () => {
    h = await startHarness(() => textReply('done', 'notice'));
    const { fake, handler } = h;
    for (const name of ['reset', 'files', 'help']) {
      fake.interaction(
        payloads.slashCommand({
          applicationId: fake.applicationId,
          channel: { id: fake.dmChannelId, type: 1 },
          user: fake.human,
          name,
        }),
      );
    }
    await fake.waitForRequest(() => handler.received.length === 3);
    expect(handler.received.map((m) => m.command?.name).sort()).toEqual(['files', 'help', 'reset']);
    expect(handler.received[0]?.thread).toMatchObject({ workspace: 'dm', thread: fake.dmChannelId });
  });
});
