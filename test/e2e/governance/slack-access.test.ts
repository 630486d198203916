import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { loadConfig } from '../../../src/config/index.js';
import type { Bot } from '../../../src/core/bot.js';
import { buildBot } from '../../../app/index.js';
import { createSlackAdapter } from '../../../app/slack.js';
import { FakeOpenAiServer, fakeSay } from '../../fakes/fake-openai-server.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { appMention, BOT_USER_ID, CHANNEL_ID, FakeSlack, slashCommand, USER_ID } from '../../fakes/fake-slack/index.js';
import { testLogger } from '../slack/support.js';
import { SlackTransport } from '../slack/transport.js';

const ANALYST = 'U0ANALYST';
const STRANGER = 'U0STRANGE';
const GROUP = 'S0ANALYSTS';
const OTHER_CHANNEL = 'C0OTHER01';
const HELP = 'Ask in #data-help to be added.';
const CODE = '```python\nprint(6 * 7)\n```';

/**
 * The access allowlists through the real bolt and web-api clients against the fake Slack: a refused place
 * or person gets one ephemeral notice and nothing runs (no model call, no sandbox run); user groups are read
 * with usergroups.users.list; direct mode is narrower than questions to the model.
 */
describe('Slack access allowlists (socket mode, real Bot)', () => {
  let fake: FakeSlack;
  let llm: FakeOpenAiServer;
  let sandbox: FakeSandbox;
  let adapter: SlackAdapter;
  let bot: Bot;
  let send: SlackTransport;
  let dataDir: string;

  beforeAll(async () => {
    fake = await new FakeSlack().start();
    fake.state.userGroups.set(GROUP, [ANALYST, 'U0SOMEONE']);
    llm = new FakeOpenAiServer();
    await llm.start();
    dataDir = mkdtempSync(join(tmpdir(), 'threadlab-access-slack-'));
    const config = loadConfig({
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_APP_TOKEN: fake.appToken,
      SLACK_API_URL: fake.apiUrl,
      OPENAI_API_KEY: 'sk-e2e-access-test-0000000000',
      OPENAI_BASE_URL: llm.baseUrl,
      OPENAI_MODEL: 'fake-gpt',
      THREADLAB_LLM_STREAM: 'false',
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_WEB_ENABLED: 'false',
      THREADLAB_ACCESS_PLACES: `slack:${CHANNEL_ID}`,
      THREADLAB_ACCESS_USERS: `slack:${USER_ID}, slack:${GROUP}`,
      THREADLAB_ACCESS_DIRECT_USERS: `slack:${USER_ID}`,
      THREADLAB_ACCESS_HELP: HELP,
    });
    sandbox = new FakeSandbox({ handler: () => ({ stdout: '42\n' }) });
    adapter = createSlackAdapter(config, testLogger, { retryConfig: { retries: 0 }, progressIntervalMs: 200 });
    bot = await buildBot(config, testLogger, { overrides: { sandbox, adapters: [adapter] } });
    await bot.start();
    await fake.socket.waitForConnection();
    send = new SlackTransport(fake, adapter, 'socket');
  });

  afterAll(async () => {
    await bot?.stop();
    await llm?.stop();
    await fake?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const ephemeralsTo = (user: string, channel = CHANNEL_ID) =>
    fake.callsTo('chat.postEphemeral').filter((c) => c.args.user === user && c.args.channel === channel);
  const postsIn = (channel: string) => fake.callsTo('chat.postMessage').filter((c) => c.args.channel === channel);
  /** Lets a refused message's handling finish; a refusal posts nothing to wait for the second time. */
  const settle = () => new Promise((r) => setTimeout(r, 400));

  it('a channel not on the list: one private notice with how to get access, nothing run, later messages quiet', async () => {
    const first = appMention({ channel: OTHER_CHANNEL, text: `<@${BOT_USER_ID}> ${CODE}` });
    await send.event(first);
    const notice = await fake.waitFor(() => ephemeralsTo(USER_ID, OTHER_CHANNEL)[0], { what: 'the notice' });
    expect(notice.args.text).toContain('not enabled in this channel');
    expect(notice.args.text).toContain(HELP);
    expect(notice.args.thread_ts).toBe(first.ts);
    await send.event(appMention({ channel: OTHER_CHANNEL, text: `<@${BOT_USER_ID}> what is 6 * 7?` }));
    await settle();
    expect(ephemeralsTo(USER_ID, OTHER_CHANNEL)).toHaveLength(1);
    expect(postsIn(OTHER_CHANNEL)).toHaveLength(0);
    expect(sandbox.runs).toHaveLength(0);
    expect(llm.requests).toHaveLength(0);
  });

  it('a person on no list and in no allowed group: refused in an allowed channel, told once', async () => {
    await send.event(appMention({ user: STRANGER, text: `<@${BOT_USER_ID}> what is 6 * 7?` }));
    const notice = await fake.waitFor(() => ephemeralsTo(STRANGER)[0], { what: 'the notice' });
    expect(notice.args.text).toContain('not on the list of people');
    await send.event(appMention({ user: STRANGER, text: `<@${BOT_USER_ID}> ${CODE}` }));
    await settle();
    expect(ephemeralsTo(STRANGER)).toHaveLength(1);
    expect(postsIn(CHANNEL_ID)).toHaveLength(0);
    expect(sandbox.runs).toHaveLength(0);
    expect(llm.requests).toHaveLength(0);
  });

  it('/interpreter from a refused person or channel posts no thread root: the notice is ephemeral, nothing runs', async () => {
    const posts = fake.callsTo('chat.postMessage').length;
    const command = (text: string, user: string, channel = CHANNEL_ID) =>
      send.command({ ...slashCommand({ text, channel, responseUrl: fake.responseUrl() }), user_id: user });
    await command('what is 6 * 7?', STRANGER);
    const toStranger = await fake.waitFor(() => ephemeralsTo(STRANGER).find((c) => c.args.thread_ts === undefined), {
      what: 'the notice to the stranger',
    });
    expect(toStranger.args.text).toContain('not on the list of people');
    await command('run print(6 * 7)', USER_ID, OTHER_CHANNEL);
    const inOther = await fake.waitFor(
      () => ephemeralsTo(USER_ID, OTHER_CHANNEL).find((c) => c.args.thread_ts === undefined),
      { what: 'the notice in the other channel' },
    );
    expect(inOther.args.text).toContain('not enabled in this channel');
    await settle();
    expect(fake.callsTo('chat.postMessage')).toHaveLength(posts);
    expect(sandbox.runs).toHaveLength(0);
    expect(llm.requests).toHaveLength(0);
  });

  it('a member of an allowed user group may ask the model but not run their own code', async () => {
    llm.push(fakeSay('It is 42.'));
    const ask = appMention({ user: ANALYST, text: `<@${BOT_USER_ID}> what is 6 * 7?` });
    await send.event(ask);
    await fake.waitFor(() => fake.state.messages.find((m) => m.thread_ts === ask.ts && m.text.includes('It is 42')), {
      what: 'the answer',
    });
    expect(llm.requests).toHaveLength(1);
    await send.event(appMention({ user: ANALYST, text: `<@${BOT_USER_ID}> ${CODE}` }));
    const notice = await fake.waitFor(() => ephemeralsTo(ANALYST)[0], { what: 'the direct-mode notice' });
    expect(notice.args.text).toContain('Running your own code directly is not enabled for you');
    expect(sandbox.runs).toHaveLength(0);
    // The group's members were read once and cached for the next messages.
    expect(fake.callsTo('usergroups.users.list')).toHaveLength(1);
    expect(fake.callsTo('usergroups.users.list')[0]!.args.usergroup).toBe(GROUP);
  });

  it('a user on the direct-mode list runs their fenced code', async () => {
    const run = appMention({ text: `<@${BOT_USER_ID}> ${CODE}` });
    await send.event(run);
    await fake.waitFor(() => sandbox.runs.find((r) => r.request.code.includes('print(6 * 7)')), { what: 'the run' });
    expect(ephemeralsTo(USER_ID)).toHaveLength(0);
    expect(llm.requests).toHaveLength(1);
  });
});
