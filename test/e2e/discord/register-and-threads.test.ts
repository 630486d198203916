import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { registerCommands } from '../../../adapters/discord/index.js';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import { textReply, type ReplyImage } from '../../../src/domain/reply.js';
import { FakeDiscord, payloads } from '../../fakes/fake-discord/index.js';
import { threadlabBin } from '../../support/threadlab-bin.js';
import { FAKE_TOKEN, makePng, silentLogger, startHarness, type Harness } from './harness.js';

describe('Discord: command registration', () => {
  it('`threadlab discord register` says each command as users find it: /run … and Apps → Run code', async () => {
    const fake = new FakeDiscord();
    await fake.start();
    try {
      // Asynchronously: the fake answers from this process's event loop.
      const run = await promisify(execFile)(
        process.execPath,
        [threadlabBin(), 'discord', 'register', '--guild', fake.guildId],
        {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            DISCORD_TOKEN: FAKE_TOKEN,
            DISCORD_APPLICATION_ID: fake.applicationId,
            DISCORD_API_URL: fake.apiUrl,
          },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(
        `Registered /run, /ask, /reset, /files, /help, /usage, /schedule, /export, Apps → Run code (guild ${fake.guildId}).\n`,
      );
    } finally {
      await fake.stop();
    }
  }, 90_000);

  it('registers /run /reset /files /help and the message command Run code globally and per guild with PUT', async () => {
    const fake = new FakeDiscord();
    await fake.start();
    try {
      const global = await registerCommands({
        token: FAKE_TOKEN,
        applicationId: fake.applicationId,
        apiUrl: fake.apiUrl,
      });
      expect(global).toEqual({
        scope: 'global',
        names: ['run', 'ask', 'reset', 'files', 'help', 'usage', 'schedule', 'export', 'Run code'],
        shown: ['/run', '/ask', '/reset', '/files', '/help', '/usage', '/schedule', '/export', 'Apps → Run code'],
      });
      const guild = await registerCommands({
        token: FAKE_TOKEN,
        applicationId: fake.applicationId,
        apiUrl: fake.apiUrl,
        guildId: fake.guildId,
      });
      expect(guild.scope).toBe('guild');
      const puts = fake.requests.filter((r) => r.method === 'PUT');
      expect(puts.map((r) => r.path)).toEqual([
        `/applications/${fake.applicationId}/commands`,
        `/applications/${fake.applicationId}/guilds/${fake.guildId}/commands`,
      ]);
      expect(puts[0]?.headers.authorization).toBe(`Bot ${FAKE_TOKEN}`);
      const run = puts[0]?.json.find((c: { name: string }) => c.name === 'run');
      expect(run.options.map((o: { name: string }) => o.name)).toEqual(['code', 'language']);
      // Global: installable to servers and users, usable in servers, the bot's DM and private channels; a guild's
      // own commands carry neither (Discord reads them for global commands only).
      expect(run).toMatchObject({ integration_types: [0, 1], contexts: [0, 1, 2] });
      expect(puts[1]?.json.find((c: { name: string }) => c.name === 'run').integration_types).toBeUndefined();
      // Apps → Run code on a message: a message command (type 3) with no description or options, as Discord wants.
      const runCode = puts[0]?.json.find((c: { name: string }) => c.name === 'Run code');
      expect(runCode).toMatchObject({ type: 3 });
      expect(runCode.options ?? []).toEqual([]);
      expect(runCode.description ?? '').toBe('');
      await expect(
        registerCommands({ token: FAKE_TOKEN, applicationId: '1', apiUrl: fake.apiUrl }),
      ).rejects.toMatchObject({ code: 'platform_api' });
    } finally {
      await fake.stop();
    }
  });
});

describe('Discord: existing threads, expired interactions, many charts', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('a mention in a forum post uses that post, joins it, and follows it afterwards', async () => {
    h = await startHarness((m) => textReply(`ok: ${m.text}`, 'answer'));
    const { fake, handler } = h;
    const post = payloads.thread({
      id: payloads.snowflake(),
      guildId: fake.guildId,
      parentId: fake.forumChannelId,
      name: 'How do I pivot?',
      ownerId: fake.human.id,
    });
    fake.channels.set(String(post.id), post);
    fake.dispatch('THREAD_CREATE', { ...post, newly_created: true });
    const postId = String(post.id);
    fake.userMessage({ channelId: postId, content: 'anyone?' });
    fake.userMessage({ channelId: postId, content: `<@${fake.bot.id}> pivot it`, mentionBot: true });
    await fake.waitForRequest((r) => r.path === `/channels/${postId}/messages` && r.json?.content === 'ok: pivot it');
    await fake.waitForRequest((r) => r.method === 'PUT' && r.path === `/channels/${postId}/thread-members/@me`);
    fake.userMessage({ channelId: postId, content: 'now by region' });
    await fake.waitForRequest(
      (r) => r.path === `/channels/${postId}/messages` && r.json?.content === 'ok: now by region',
    );
    expect(handler.received.map((m) => m.text)).toEqual(['pivot it', 'now by region']);
    expect(handler.received[0]?.thread).toEqual({
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.forumChannelId,
      thread: postId,
    });
    expect(fake.requests.some((r) => r.path.endsWith('/threads'))).toBe(false);
  });

  it('uses the existing thread when Discord says the message already has one (code 160004)', async () => {
    h = await startHarness((m) => textReply(`ok: ${m.text}`, 'answer'));
    const { fake, handler } = h;
    const msg = payloads.message({
      channelId: fake.textChannelId,
      guildId: fake.guildId,
      author: fake.human,
      content: `<@${fake.bot.id}> again`,
      mentions: [fake.bot],
    });
    const existing = payloads.thread({
      id: String(msg.id),
      guildId: fake.guildId,
      parentId: fake.textChannelId,
      name: 'again',
      ownerId: fake.human.id,
    });
    fake.channels.set(String(msg.id), existing);
    fake.messages.set(String(msg.id), { ...msg, thread: existing });
    fake.dispatch('MESSAGE_CREATE', msg);
    await fake.waitForRequest((r) => r.path === `/channels/${msg.id}/messages` && r.json?.content === 'ok: again');
    expect(fake.requests.find((r) => r.path.endsWith('/threads'))?.status).toBe(400);
    expect(handler.received[0]?.thread.thread).toBe(String(msg.id));
  });

  it('when the interaction token has expired, the answer goes to the channel instead', async () => {
    h = await startHarness(() => textReply('late answer', 'answer'));
    const { fake } = h;
    fake.fail({
      method: 'PATCH',
      path: /^\/webhooks\//,
      times: 100,
      status: 401,
      body: { message: 'Invalid Webhook Token', code: 50027 },
    });
    fake.slashCommand({ name: 'files' });
    await fake.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${fake.textChannelId}/messages` &&
        r.json?.content === 'late answer',
    );
  });

  it('12 charts become 9 images and a contact sheet on one message (sharp renderer)', async () => {
    const images: ReplyImage[] = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => ({
        name: `figure-${i + 1}.png`,
        mime: 'image/png',
        data: await makePng(200, 150),
        alt: `figure ${i + 1}`,
        width: 200,
        height: 150,
      })),
    );
    h = await startHarness(() => ({ kind: 'answer', text: 'twelve charts', runs: [], images, files: [] }), {
      adapter: { renderer: new SharpArtifactRenderer({ logger: silentLogger() }) },
    });
    const { fake } = h;
    fake.userMessage({ channelId: fake.dmChannelId, content: 'plot everything' });
    const msg = await fake.waitForRequest(
      (r) => r.path === `/channels/${fake.dmChannelId}/messages` && r.files.length > 0,
    );
    expect(msg.files).toHaveLength(10);
    expect(msg.files.slice(0, 9).map((f) => f.filename)).toEqual(images.slice(0, 9).map((i) => i.name));
    const sheet = await sharp(msg.files[9]!.data).metadata();
    expect(sheet.width).toBeGreaterThan(200);
  });
});
