/**
 * Discord in split roles: the gateway process holds the only Discord gateway connection; a worker
 * process, whose Discord adapter is never started, answers through REST alone: a mention (thread,
 * status message, reply in the thread) and a slash command (the deferred reply, via the webhook).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RolesCluster } from './cluster.js';
import { jobsFinished, type ThreadlabProcess } from './processes.js';
import { pythonBlock } from './slack-thread.js';

const cluster = new RolesCluster();
let gateway: ThreadlabProcess;
let worker: ThreadlabProcess;

beforeAll(async () => {
  await cluster.start();
  [gateway, worker] = await Promise.all([cluster.spawn('gateway', 'gateway'), cluster.spawn('worker', 'worker')]);
  await cluster.discord.gateway.whenIdentified();
}, 120_000);

afterAll(async () => {
  await cluster.cleanup();
}, 60_000);

describe('Discord answers from a worker process', () => {
  it('a mention in a channel: the gateway opens the thread, the worker posts status and answer there', async () => {
    const { discord } = cluster;
    const question = discord.userMessage({
      channelId: discord.textChannelId,
      content: `<@${discord.bot.id}> ${pythonBlock('print(127 * 331)')}`,
      mentionBot: true,
    });
    const threadId = String(question.id);
    await discord.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${discord.textChannelId}/messages/${threadId}/threads`,
    );
    const answer = await discord.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${threadId}/messages` &&
        !(r.json?.components?.length > 0) &&
        String(r.json?.content).includes('42037'),
      60_000,
    );
    expect(answer.status).toBe(200);
    const status = discord.requests.find(
      (r) => r.method === 'POST' && r.path === `/channels/${threadId}/messages` && r.json?.components?.length > 0,
    );
    expect(status).toBeDefined();
    await discord.waitForRequest((r) => r.method === 'DELETE' && r.path.startsWith(`/channels/${threadId}/messages/`));
  });

  it('a slash command: deferred by the gateway, answered by the worker through the interaction webhook', async () => {
    const { discord } = cluster;
    const interaction = discord.slashCommand({
      name: 'run',
      options: [
        { name: 'code', type: 3, value: 'print(331 * 127)' },
        { name: 'language', type: 3, value: 'python' },
      ],
    });
    const token = String(interaction.token);
    const defer = await discord.waitForRequest((r) => r.path === `/interactions/${interaction.id}/${token}/callback`);
    expect(defer.json).toMatchObject({ type: 5 });
    const done = await discord.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path === `/webhooks/${discord.applicationId}/${token}/messages/@original` &&
        String(r.json?.content).includes('42037'),
      60_000,
    );
    expect(done.status).toBe(200);
    expect(done.headers.authorization).toBeUndefined();
  });

  it('only the gateway connected to Discord, and only the worker ran jobs', async () => {
    const identifies = cluster.discord.gateway.frames.filter((f) => f.direction === 'in' && f.payload.op === 2);
    expect(identifies).toHaveLength(1);
    expect(await jobsFinished(worker, 2)).toBe(2);
    expect(await jobsFinished(gateway, 0)).toBe(0);
  });
});
