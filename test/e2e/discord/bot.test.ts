import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadKey } from '../../../src/domain/thread-key.js';
import { FakeDiscord, payloads, type RecordedRequest } from '../../fakes/fake-discord/index.js';
import { FakeOpenAiServer, fakeRunCode, fakeSay, SALES_CHART_CODE } from '../../fakes/fake-openai-server.js';
import { startDiscordBot, type DiscordBotRig } from './bot-rig.js';

describe('Discord through the real core (Bot), DockerSandbox and the openai client', () => {
  let fake: FakeDiscord;
  let llm: FakeOpenAiServer;

  let rig: DiscordBotRig | undefined;
  beforeAll(async () => {
    llm = new FakeOpenAiServer();
    await llm.start();
    rig = await startDiscordBot('e2e', {
      llm,
      env: { OPENAI_MODEL: 'fake-gpt', THREADLAB_SANDBOX_MEMORY_MB: '512' },
    });
    ({ fake } = rig);
  });

  afterAll(async () => {
    await rig?.stop();
    await llm?.stop();
  });

  const postsTo = (channelId: string): RecordedRequest[] =>
    fake.requests.filter(
      (r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages` && r.status === 200,
    );

  it('a CSV and a question in a mention → a thread with the chart as a real PNG and the answer', async () => {
    const csv = Buffer.from('month,revenue\n1,10\n2,14\n3,9\n4,21\n');
    llm.push(fakeRunCode(SALES_CHART_CODE), fakeSay('Revenue peaked in month 4; the total is 54.'));
    const att = fake.hostAttachment('sales.csv', csv, 'text/csv');
    const question = fake.userMessage({
      channelId: fake.textChannelId,
      content: `<@${fake.bot.id}> plot revenue by month`,
      mentionBot: true,
      attachments: [att],
    });
    const threadId = String(question.id);
    const chart = await fake.waitForRequest(
      (r) => r.path === `/channels/${threadId}/messages` && r.files.some((f) => f.filename.endsWith('.png')),
      120_000,
    );
    const png = chart.files.find((f) => f.filename.endsWith('.png'))!;
    const meta = await sharp(png.data).metadata();
    expect(meta.format).toBe('png');
    expect(meta.width).toBeGreaterThan(100);
    await fake.waitForRequest(
      (r) => r.path === `/channels/${threadId}/messages` && String(r.json?.content).includes('peaked in month 4'),
      30_000,
    );
    const toolResults = JSON.stringify(llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool'));
    expect(toolResults).toContain('54');
    // the status message was removed once the answer was posted
    await fake.waitForRequest(
      (r) => r.method === 'DELETE' && r.path.startsWith(`/channels/${threadId}/messages/`),
      10_000,
    );
  });

  it('/run is deferred, runs in the sandbox and completes the deferred reply', async () => {
    const sent = Date.now();
    const interaction = fake.slashCommand({ name: 'run', options: [{ name: 'code', type: 3, value: 'print(6 * 7)' }] });
    const defer = await fake.waitForRequest(
      (r) => r.path === `/interactions/${interaction.id}/${interaction.token}/callback`,
    );
    expect(defer.json.type).toBe(5);
    expect(defer.atMs - sent).toBeLessThan(3000);
    // The answer, not a live status edit that already shows the streamed "42": the answer is the one
    // write that sets the message's components (clearing the Stop button).
    const done = await fake.waitForRequest(
      (r) =>
        r.path.startsWith(`/webhooks/${fake.applicationId}/${interaction.token}`) &&
        r.json?.components !== undefined &&
        /(^|\n)42(\n|$)/m.test(String(r.json?.content ?? '')),
      60_000,
    );
    expect(done.json.components).toEqual([]);
  });

  it('the Stop button cancels a long run', async () => {
    llm.push(
      fakeRunCode('import time\nprint("sleeping", flush=True)\ntime.sleep(25)\nprint("woke")'),
      fakeSay('Done sleeping.'),
    );
    const question = fake.userMessage({
      channelId: fake.textChannelId,
      content: `<@${fake.bot.id}> sleep for a while`,
      mentionBot: true,
    });
    const threadId = String(question.id);
    await fake.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path.startsWith(`/channels/${threadId}/messages/`) &&
        String(r.json?.content).includes('Running python'),
      60_000,
    );
    const status = [...fake.messages.values()].find(
      (m) => m.channel_id === threadId && (m.components as unknown[] | undefined)?.length,
    )!;
    const customId = (status.components as { components: { custom_id: string }[] }[])[0]!.components[0]!.custom_id;
    expect(customId).toBe(
      `threadlab_stop:${threadKey({ platform: 'discord', workspace: fake.guildId, channel: fake.textChannelId, thread: threadId })}`,
    );
    const started = Date.now();
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
    await fake.waitForRequest(
      (r) => r.method === 'DELETE' && r.path === `/channels/${threadId}/messages/${status.id}`,
      20_000,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    const said = postsTo(threadId)
      .map((r) => String(r.json?.content))
      .join('\n');
    expect(said).not.toContain('Done sleeping');
  });
});
