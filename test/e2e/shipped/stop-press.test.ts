/**
 * Who may stop a run (issue 26, item 4), in the product as shipped: one `threadlab start` child process with
 * Slack (Socket Mode) and Discord, the access allowlists and the approval admins set, against the fakes and
 * the real Docker engine. A run is stopped by the person whose message started it or by an admin; anyone
 * else (a person refused by the allowlists too) pressing Stop, or typing `stop`, is told privately and the
 * run goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadKey } from '../../../src/domain/thread-key.js';
import { payloads } from '../../fakes/fake-discord/index.js';
import {
  appMention,
  BOT_USER_ID,
  buttonPress,
  CHANNEL_ID,
  eventCallback,
  messageEvent,
  TEAM_ID,
  USER_ID,
} from '../../fakes/fake-slack/index.js';
import { ShippedBot } from './shipped-bot.js';

const bot = new ShippedBot({ slack: true, discord: true });
const SLACK_OTHER = 'U0OTHER01';
const SLACK_ADMIN = 'U0ADMIN01';
const SLACK_STRANGER = 'U0STRANGE1';
const discordOther = payloads.user(payloads.snowflake(), 'bob');
const discordAdmin = payloads.user(payloads.snowflake(), 'root');
/** Long enough to outlast the refused presses, well under the time a stop is allowed to take. */
const SLEEPER = '```python\nimport time\nprint("sleeping", flush=True)\ntime.sleep(25)\nprint("woke up")\n```';
const NOT_YOURS = /Only .+ or (a Threadlab|an) admin can stop this run/;

beforeAll(async () => {
  await bot.start({
    THREADLAB_ACCESS_USERS: `slack:${USER_ID},slack:${SLACK_OTHER},slack:${SLACK_ADMIN},discord:*`,
    THREADLAB_APPROVAL_ADMINS: `slack:${SLACK_ADMIN},discord:${discordAdmin.id}`,
  });
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

describe('Slack: Stop through threadlab start', () => {
  const fake = () => bot.slack;
  const key = (ts: string) => threadKey({ platform: 'slack', workspace: TEAM_ID, channel: CHANNEL_ID, thread: ts });
  const startRun = async (): Promise<{ ts: string; statusTs: string }> => {
    const event = appMention({ text: `<@${BOT_USER_ID}> ${SLEEPER}` });
    await fake().socket.send('events_api', eventCallback(event));
    const ts = event.ts as string;
    const status = await fake().waitFor(
      () =>
        fake().state.messages.find(
          (m) => m.thread_ts === ts && !m.deleted && JSON.stringify(m.blocks ?? []).includes(`"value":"${key(ts)}"`),
        ),
      { what: 'the live status with its Stop button', timeoutMs: 60_000 },
    );
    return { ts, statusTs: status.ts };
  };
  const press = (run: { ts: string; statusTs: string }, userId: string) =>
    fake().socket.send(
      'interactive',
      buttonPress({
        actionId: 'threadlab_stop',
        value: key(run.ts),
        messageTs: run.statusTs,
        threadTs: run.ts,
        responseUrl: fake().responseUrl(),
        userId,
      }),
    );
  const ephemeralsTo = (user: string) =>
    fake()
      .callsTo('chat.postEphemeral')
      .filter((c) => c.args.user === user);
  const statusOf = (run: { statusTs: string }) => fake().state.messages.find((m) => m.ts === run.statusTs);
  const stoppedIn = (ts: string) =>
    fake().waitFor(
      () => fake().state.messages.find((m) => m.thread_ts === ts && !m.deleted && /stopped/i.test(m.text)),
      { what: `the stopped answer in thread ${ts}`, timeoutMs: 15_000 },
    );

  it('someone else, a refused person or a typed stop by someone else: told privately, the run goes on; an admin stops it', async () => {
    const run = await startRun();
    await press(run, SLACK_OTHER);
    const notice = await fake().waitFor(() => ephemeralsTo(SLACK_OTHER)[0], { what: 'the notice to the other user' });
    expect(String(notice.args.text)).toMatch(NOT_YOURS);
    await press(run, SLACK_STRANGER);
    const refused = await fake().waitFor(() => ephemeralsTo(SLACK_STRANGER)[0], { what: 'the notice to the stranger' });
    expect(String(refused.args.text)).toContain('not on the list');
    await fake().socket.send(
      'events_api',
      eventCallback(messageEvent({ text: 'stop', thread_ts: run.ts, user: SLACK_OTHER })),
    );
    await fake().waitFor(() => ephemeralsTo(SLACK_OTHER)[1], { what: 'the notice for the typed stop' });
    expect(String(ephemeralsTo(SLACK_OTHER)[1]!.args.text)).toMatch(NOT_YOURS);
    await new Promise((r) => setTimeout(r, 1000));
    expect(statusOf(run)?.deleted).toBeFalsy();
    expect(fake().state.messages.filter((m) => m.thread_ts === run.ts && /stopped/i.test(m.text))).toHaveLength(0);

    const pressedAt = Date.now();
    await press(run, SLACK_ADMIN);
    await stoppedIn(run.ts);
    expect(Date.now() - pressedAt).toBeLessThan(15_000);
  }, 120_000);

  it('the person who started the run stops it with the button', async () => {
    const run = await startRun();
    const before = ephemeralsTo(USER_ID).length;
    await press(run, USER_ID);
    await stoppedIn(run.ts);
    expect(ephemeralsTo(USER_ID)).toHaveLength(before);
  }, 120_000);
});

describe('Discord: Stop through threadlab start', () => {
  const fake = () => bot.discord;
  const startRun = async (): Promise<{ threadId: string; customId: string; status: Record<string, unknown> }> => {
    const question = fake().userMessage({
      channelId: fake().textChannelId,
      content: `<@${fake().bot.id}> ${SLEEPER}`,
      mentionBot: true,
    });
    const threadId = String(question.id);
    await fake().waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${threadId}/messages` && r.json?.components?.length > 0,
      60_000,
    );
    const status = [...fake().messages.values()].find(
      (m) => m.channel_id === threadId && (m.components as unknown[] | undefined)?.length,
    )!;
    const customId = (status.components as { components: { custom_id: string }[] }[])[0]!.components[0]!.custom_id;
    return { threadId, customId, status };
  };
  const press = (run: Awaited<ReturnType<typeof startRun>>, user: payloads.FakeUser) =>
    fake().interaction(
      payloads.buttonPress({
        applicationId: fake().applicationId,
        guildId: fake().guildId,
        channel: { id: run.threadId, type: 11, parent_id: fake().textChannelId },
        user,
        customId: run.customId,
        message: run.status,
      }),
    );
  const ackOf = (pressed: Record<string, unknown>) =>
    fake().waitForRequest((r) => r.path === `/interactions/${String(pressed.id)}/${String(pressed.token)}/callback`);
  const statusDeleted = (run: Awaited<ReturnType<typeof startRun>>, timeoutMs: number) =>
    fake().waitForRequest(
      (r) => r.method === 'DELETE' && r.path === `/channels/${run.threadId}/messages/${String(run.status.id)}`,
      timeoutMs,
    );

  it('someone else is told privately and the run goes on; the admin, then the starter, stop runs', async () => {
    const run = await startRun();
    const ack = await ackOf(press(run, discordOther));
    expect(ack.json).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(String(ack.json.data.content)).toMatch(NOT_YOURS);
    await expect(statusDeleted(run, 1500)).rejects.toThrow();

    const byAdmin = await ackOf(press(run, discordAdmin));
    expect(String(byAdmin.json.data.content)).not.toMatch(NOT_YOURS);
    await statusDeleted(run, 15_000);

    const second = await startRun();
    const byStarter = await ackOf(press(second, fake().human));
    expect(byStarter.json).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(String(byStarter.json.data.content)).not.toMatch(NOT_YOURS);
    await statusDeleted(second, 15_000);
  }, 180_000);
});
