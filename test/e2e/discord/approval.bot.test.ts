import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord, payloads, type RecordedRequest } from '../../fakes/fake-discord/index.js';
import { FakeOpenAiServer, fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { startDiscordBot, type DiscordBotRig } from './bot-rig.js';

const TIMEOUT_MS = 6000;

describe('Approval before running, on Discord (discord.js, real Bot and DockerSandbox)', () => {
  let fake: FakeDiscord;
  let llm: FakeOpenAiServer;

  let rig: DiscordBotRig | undefined;
  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    rig = await startDiscordBot('approval', {
      llm,
      env: { THREADLAB_APPROVAL: 'ask', THREADLAB_APPROVAL_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
    ({ fake } = rig);
  });

  afterAll(async () => {
    await rig?.stop();
    await llm?.stop();
  });

  const ask = (text: string) => {
    const question = fake.userMessage({
      channelId: fake.textChannelId,
      content: `<@${fake.bot.id}> ${text}`,
      mentionBot: true,
    });
    return String(question.id);
  };
  const approvalPost = (threadId: string): Promise<RecordedRequest> =>
    fake.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        JSON.stringify(r.json?.components ?? []).includes('threadlab_approval:run:'),
      30_000,
    );
  const press = (threadId: string, customId: string, user = fake.human) => {
    const message = [...fake.messages.values()].find(
      (m) => m.channel_id === threadId && JSON.stringify(m.components ?? []).includes(customId),
    )!;
    return fake.interaction(
      payloads.buttonPress({
        applicationId: fake.applicationId,
        guildId: fake.guildId,
        channel: { id: threadId, type: 11, parent_id: fake.textChannelId },
        user,
        customId,
        message,
      }),
    );
  };
  const buttonIds = (post: RecordedRequest): string[] =>
    (post.json.components[0].components as { custom_id: string }[]).map((c) => c.custom_id);
  const answered = (threadId: string, text: string) =>
    fake.waitForRequest(
      (r) => r.path === `/channels/${threadId}/messages` && String(r.json?.content).includes(text),
      60_000,
    );
  const toolResults = () => JSON.stringify(llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool'));

  it('another user’s Run is refused ephemerally; the asker’s Run runs the code', async () => {
    llm.push(fakeRunCode('print(6 * 7)'), fakeSay('The answer is 42.'));
    const threadId = ask('compute six times seven');
    const post = await approvalPost(threadId);
    expect(String(post.json.content)).toContain('print(6 * 7)');
    const [runId] = buttonIds(post);

    const intruder = press(threadId, runId!, payloads.user(payloads.snowflake(), 'mallory'));
    const refused = await fake.waitForRequest(
      (r) => r.path === `/interactions/${intruder.id}/${intruder.token}/callback`,
    );
    expect(refused.json).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(String(refused.json.data.content)).toContain('Only the person who asked');
    expect(llm.requests).toHaveLength(1);

    const asker = press(threadId, runId!);
    const ack = await fake.waitForRequest((r) => r.path === `/interactions/${asker.id}/${asker.token}/callback`);
    expect(ack.json.type).toBe(6); // deferred update: the prompt itself is edited
    await answered(threadId, 'The answer is 42');
    expect(toolResults()).toContain('42');
    const settled = await fake.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path.startsWith(`/channels/${threadId}/messages/`) &&
        String(r.json?.content).includes('Run approved by'),
    );
    expect(settled.json.components).toEqual([]);
  });

  it('Skip: nothing runs and the model is told', async () => {
    llm.push(fakeRunCode('print("skipped")'), fakeSay('Fine, I did not run it.'));
    const threadId = ask('print skipped');
    const [, skipId] = buttonIds(await approvalPost(threadId));
    press(threadId, skipId!);
    await answered(threadId, 'did not run it');
    expect(toolResults()).toContain('This code did NOT run: The user chose Skip');
  });

  it('times out after THREADLAB_APPROVAL_TIMEOUT_MS: skipped and the model told', async () => {
    llm.push(fakeRunCode('print("never")'), fakeSay('Nobody approved, so nothing ran.'));
    const started = Date.now();
    const threadId = ask('print never');
    await approvalPost(threadId);
    await answered(threadId, 'Nobody approved, so');
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(toolResults()).toContain('Nobody approved it within 6 s');
    await fake.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path.startsWith(`/channels/${threadId}/messages/`) &&
        String(r.json?.content).includes('No answer within 6 s'),
    );
  });

  it('code longer than a message goes whole as an attached file', async () => {
    const code = Array.from({ length: 120 }, (_, i) => `value_${i} = ${i} * 2  # a line of the model's long code`).join(
      '\n',
    );
    llm.push(fakeRunCode(code), fakeSay('Skipped the long one.'));
    const threadId = ask('long code');
    const post = await approvalPost(threadId);
    expect(String(post.json.content)).toContain('is attached as `code.py`');
    expect(post.files[0]!.data.toString('utf8')).toBe(code);
    press(threadId, buttonIds(post)[1]!);
    await answered(threadId, 'Skipped the long one');
  });
});
