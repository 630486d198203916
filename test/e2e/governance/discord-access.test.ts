import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS } from '../../../sandbox/container-spec.js';
import { FakeDiscord, payloads, type RecordedRequest } from '../../fakes/fake-discord/index.js';
import { FakeOpenAiServer, fakeSay } from '../../fakes/fake-openai-server.js';
import { startDiscordBot, type DiscordBotRig } from '../discord/bot-rig.js';
import { docker } from '../roles/containers.js';

const HELP = 'Ask in #data-help to be added.';
const EPHEMERAL = 64;

/**
 * The access allowlists through the real discord.js client against the fake Discord, on the real core (Bot)
 * and Docker sandbox: a refused place or person starts nothing (no thread, no model call, no container)
 * and is told once, privately (a DM for a message, an ephemeral response for a slash command; in the
 * channel when DMs are closed); a role on the list lets a member in; direct mode is narrower than questions.
 */
describe('Discord access allowlists (discord.js, real Bot and Docker sandbox)', () => {
  let rig: DiscordBotRig;
  let fake: FakeDiscord;
  let llm: FakeOpenAiServer;
  const startedAtMs = Date.now();
  const stranger = payloads.user(payloads.snowflake(), 'mallory');
  const hermit = payloads.user(payloads.snowflake(), 'hermit');
  const analyst = payloads.user(payloads.snowflake(), 'grace');

  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    rig = await startDiscordBot('access', {
      llm,
      env: (f) => ({
        THREADLAB_ACCESS_PLACES: `discord:${f.textChannelId}`,
        THREADLAB_ACCESS_USERS: `discord:${f.human.id}, discord:${f.roleId}`,
        THREADLAB_ACCESS_DIRECT_USERS: `discord:${f.human.id}`,
        THREADLAB_ACCESS_HELP: HELP,
      }),
    });
    ({ fake } = rig);
  }, 180_000);

  afterAll(async () => {
    await rig?.stop();
    await llm?.stop();
  });

  const mention = (channelId: string, author: payloads.FakeUser, roles?: string[]) =>
    fake.userMessage({
      channelId,
      content: `<@${fake.bot.id}> what is 6 * 7?`,
      mentionBot: true,
      author,
      ...(roles ? { roles } : {}),
    });
  const run = (user: payloads.FakeUser, code: string, roles?: string[]) =>
    fake.slashCommand({
      name: 'run',
      options: [{ name: 'code', type: 3, value: code }],
      user,
      ...(roles ? { roles } : {}),
    });
  const callbacksOf = (interaction: Record<string, unknown>): RecordedRequest[] =>
    fake.requests.filter(
      (r) => r.path === `/interactions/${String(interaction.id)}/${String(interaction.token)}/callback`,
    );
  const threadsCreated = () => fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/threads'));
  const postsIn = (channelId: string) =>
    fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages`);
  const waitFor = async <T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  /** Lets a refused message's handling finish: a quiet refusal sends nothing to wait for. */
  const settle = () => new Promise((r) => setTimeout(r, 500));
  /** Sandbox containers this rig's sandbox created since the test began, from the engine's event log. */
  const containersCreated = async (): Promise<number> => {
    const stream = (await docker.getEvents({
      since: Math.floor(startedAtMs / 1000) - 1,
      until: Math.ceil(Date.now() / 1000) + 1,
      filters: { type: ['container'], event: ['create'], label: [`${LABELS.instance}=${rig.sandbox.instanceId}`] },
    })) as NodeJS.ReadableStream;
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    return text.split('\n').filter((l) => l.trim()).length;
  };

  it('a channel not on the list: no thread, a DM with how to get access, once; nothing runs', async () => {
    mention(fake.otherTextChannelId, fake.human);
    const dm = await waitFor('the DM', () => fake.directMessagesTo(fake.human.id)[0]);
    expect(String(dm.content)).toContain('Threadlab is not enabled in this channel');
    expect(String(dm.content)).toContain(HELP);
    mention(fake.otherTextChannelId, fake.human);
    await settle();
    expect(fake.directMessagesTo(fake.human.id)).toHaveLength(1);
    expect(threadsCreated()).toHaveLength(0);
    expect(postsIn(fake.otherTextChannelId)).toHaveLength(0);
    expect(llm.requests).toHaveLength(0);
  });

  it('a person on no list: no thread, told by DM once; a slash command answered ephemerally, never deferred', async () => {
    mention(fake.textChannelId, stranger);
    const dm = await waitFor('the DM', () => fake.directMessagesTo(stranger.id)[0]);
    expect(String(dm.content)).toContain('You are not on the list of people who may use Threadlab');
    mention(fake.textChannelId, stranger);
    await settle();
    expect(fake.directMessagesTo(stranger.id)).toHaveLength(1);
    expect(threadsCreated()).toHaveLength(0);

    for (const attempt of [1, 2]) {
      const sentAtMs = Date.now();
      const command = run(stranger, `print("attempt ${attempt}")`);
      const [callback] = await waitFor('the ephemeral answer', () => callbacksOf(command)[0] && callbacksOf(command));
      expect(callback!.json).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
      expect(String(callback!.json.data.content)).toContain('not on the list of people');
      // Discord drops an interaction not answered within 3 s: the check comes before any acknowledgement.
      expect(callback!.atMs - sentAtMs).toBeLessThan(3000);
      if (process.env.THREADLAB_TEST_LOG) process.stderr.write(`refusal answered in ${callback!.atMs - sentAtMs} ms\n`);
      await settle();
      expect(callbacksOf(command)).toHaveLength(1); // no public "thinking…" deferral before or after
    }
    expect(postsIn(fake.textChannelId)).toHaveLength(0);
    expect(llm.requests).toHaveLength(0);
  });

  it('a refused person whose DMs are closed (50007) is told in the channel instead', async () => {
    fake.dmsClosed.add(hermit.id);
    mention(fake.textChannelId, hermit);
    const post = await waitFor('the notice in the channel', () => postsIn(fake.textChannelId)[0]);
    expect(String(post.json.content)).toContain('not on the list of people');
    expect(
      fake.requests.some((r) => r.status === 403 && r.path === `/channels/${fake.dmChannels.get(hermit.id)}/messages`),
    ).toBe(true);
    expect(threadsCreated()).toHaveLength(0);
    expect(await containersCreated()).toBe(0);
  });

  it('a member with a listed role may ask the model, but not run their own code (direct mode is narrower)', async () => {
    llm.push(fakeSay('It is 42.'));
    mention(fake.textChannelId, analyst, [fake.roleId]);
    const thread = await waitFor('the thread', () => threadsCreated()[0]);
    const threadId = String(thread.path.split('/')[4]);
    await waitFor('the answer', () => postsIn(threadId).find((r) => String(r.json?.content).includes('It is 42.')));
    expect(llm.requests).toHaveLength(1);
    const containersBefore = await containersCreated(); // the question's thread has its session

    const command = run(analyst, 'print(6 * 7)', [fake.roleId]);
    const [callback] = await waitFor('the ephemeral answer', () => callbacksOf(command)[0] && callbacksOf(command));
    expect(callback!.json).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
    expect(String(callback!.json.data.content)).toContain('Running your own code directly is not enabled for you');
    await settle();
    expect(await containersCreated()).toBe(containersBefore);
  });

  it('a person on the direct-mode list runs their code in the sandbox', async () => {
    const command = run(fake.human, 'print(6 * 7)');
    await fake.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path === `/webhooks/${fake.applicationId}/${String(command.token)}/messages/@original` &&
        String(r.json?.content).includes('42'),
      90_000,
    );
    expect(callbacksOf(command)[0]!.json).toMatchObject({ type: 5 });
    expect(await containersCreated()).toBeGreaterThan(0);
  }, 120_000);
});
