import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import {
  appMention,
  BOT_USER_ID,
  eventCallback,
  FakeSlack,
  postCommand,
  postEvent,
  slashCommand,
} from '../../fakes/fake-slack/index.js';
import { answer, ScriptedHandler, SIGNING_SECRET, startAdapter } from './support.js';

describe('Slack adapter in HTTP mode: request signatures', () => {
  let fake: FakeSlack;
  let adapter: SlackAdapter;
  const handler = new ScriptedHandler(async () => answer('ok'));
  let url: string;

  beforeAll(async () => {
    fake = await new FakeSlack().start();
    adapter = await startAdapter(fake, 'http', handler);
    handler.adapter = adapter;
    url = `http://127.0.0.1:${adapter.httpPort}/slack/events`;
  });
  afterAll(async () => {
    await adapter.stop();
    await fake.stop();
  });

  it('rejects an unsigned event with 401 and never hands it on', async () => {
    const res = await postEvent(url, eventCallback(appMention({ text: `<@${BOT_USER_ID}> hi` })), {});
    expect(res.status).toBe(401);
  });

  it('rejects a stale event (signed 6 minutes ago) with 401', async () => {
    const timestampSec = Math.floor(Date.now() / 1000) - 6 * 60;
    const res = await postEvent(url, eventCallback(appMention({ text: `<@${BOT_USER_ID}> hi` })), {
      signingSecret: SIGNING_SECRET,
      timestampSec,
    });
    expect(res.status).toBe(401);
  });

  it('rejects an event signed with another secret, and a forged slash command, with 401', async () => {
    const forged = await postEvent(url, eventCallback(appMention({ text: `<@${BOT_USER_ID}> hi` })), {
      signingSecret: 'ffffffffffffffffffffffffffffffff',
    });
    expect(forged.status).toBe(401);
    const command = await postCommand(url, slashCommand({ text: 'run print(1)', responseUrl: fake.responseUrl() }), {});
    expect(command.status).toBe(401);
  });

  it('answers the url_verification challenge Slack sends when the request URL is set', async () => {
    const res = await postEvent(
      url,
      { token: 'x', challenge: 'c-123', type: 'url_verification' },
      { signingSecret: SIGNING_SECRET },
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('c-123');
  });

  it('accepts the same event when it is signed now', async () => {
    const before = handler.messages.length;
    const res = await postEvent(url, eventCallback(appMention({ text: `<@${BOT_USER_ID}> hi` })), {
      signingSecret: SIGNING_SECRET,
    });
    expect(res.status).toBe(200);
    await fake.waitFor(() => handler.messages.length === before + 1, { what: 'the signed event' });
    expect(handler.messages).toHaveLength(1); // the three rejected ones never arrived
  });
});
