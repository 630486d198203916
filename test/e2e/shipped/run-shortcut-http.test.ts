/**
 * Slack's Run in Threadlab shortcut through `threadlab start` in HTTP mode: the fake Slack posts the real
 * `message_action` payload (form-encoded, signed) to the process's /slack/events, which acknowledges it within
 * Slack's 3 s and answers in the message's thread from a run in the real sandbox. A payload whose signature does
 * not match is refused and runs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_SHORTCUT_CALLBACK_ID } from '../../../adapters/slack/map-shortcut.js';
import { messageShortcut, nextTs, richText, richTextFallback, USER_ID } from '../../fakes/fake-slack/index.js';
import { freePort } from '../../support/redis-server.js';
import { waitUntil } from '../roles/processes.js';
import { listeningAddresses } from './listening.js';
import { ShippedBot } from './shipped-bot.js';

const SIGNING_SECRET = '8f742231b10e8888abcd99aaaaaa85a5';
const bot = new ShippedBot({ slack: true });
let url = '';

beforeAll(async () => {
  await bot.startFakes();
  const port = await freePort();
  await bot.spawn({
    THREADLAB_SLACK_MODE: 'http',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    THREADLAB_SLACK_PORT: String(port),
    THREADLAB_SLACK_HOST: '127.0.0.1',
  });
  await bot.process.ready(120_000);
  await waitUntil(() => listeningAddresses(port).length > 0, { timeoutMs: 10_000, what: `a listener on ${port}` });
  url = `http://127.0.0.1:${port}/slack/events`;
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

describe('Run in Threadlab through threadlab start (HTTP mode)', () => {
  const shortcutOn = (ts: string, code: string, responseId: string) => {
    const parts = [{ code }];
    return messageShortcut({
      callbackId: RUN_SHORTCUT_CALLBACK_ID,
      message: { ts, user: 'U0AUTHOR7', text: richTextFallback(parts), blocks: [richText(parts)] },
      userId: USER_ID,
      responseUrl: bot.slack.responseUrl(responseId),
    });
  };

  it('acknowledges the signed payload at once and answers in the message thread', async () => {
    const ts = nextTs();
    const { ackMs, status } = await bot.slack.interact(shortcutOn(ts, 'print("http", 6 * 7)', 'http-ok'), {
      url,
      signingSecret: SIGNING_SECRET,
    });
    expect(status).toBe(200);
    expect(ackMs).toBeLessThan(3000);
    await bot.slack.waitFor(
      () => bot.slack.state.messages.find((m) => m.thread_ts === ts && !m.deleted && m.text.includes('http 42')),
      { what: 'the answer in the thread', timeoutMs: 90_000 },
    );
  }, 120_000);

  it('a payload signed with another secret is refused (401) and nothing is posted', async () => {
    const ts = nextTs();
    const { status } = await bot.slack.interact(shortcutOn(ts, 'print("forged")', 'http-forged'), {
      url,
      signingSecret: 'ffffffffffffffffffffffffffffffff',
    });
    expect(status).toBe(401);
    await new Promise((r) => setTimeout(r, 1000));
    expect(bot.slack.state.messages.filter((m) => m.thread_ts === ts)).toHaveLength(0);
  }, 60_000);
});
