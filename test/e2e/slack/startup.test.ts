import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackAdapter } from '../../../adapters/slack/index.js';
import { FakeSlack } from '../../fakes/fake-slack/index.js';
import { answer, ScriptedHandler, SIGNING_SECRET, testLogger } from './support.js';

describe('Slack adapter start-up against a fake Slack', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await new FakeSlack().start();
  });
  afterAll(async () => {
    await fake.stop();
  });

  const adapter = (o: Partial<ConstructorParameters<typeof SlackAdapter>[0]>) =>
    new SlackAdapter({
      botToken: fake.botToken,
      appToken: fake.appToken,
      signingSecret: SIGNING_SECRET,
      apiUrl: fake.apiUrl,
      port: 0,
      host: '127.0.0.1',
      logger: testLogger,
      retryConfig: { retries: 0 },
      ...o,
    });

  it('says which token is wrong when Slack refuses the bot token', async () => {
    const err = await adapter({ botToken: 'xoxb-wrong-token-000' })
      .start(new ScriptedHandler(async () => answer('x')))
      .catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'platform_api' });
    expect((err as Error).message).toContain('SLACK_BOT_TOKEN was refused');
    expect((err as Error).message).toContain('invalid_auth');
  });

  it('says to check the app token when Socket Mode cannot connect', async () => {
    const err = await adapter({ mode: 'socket', appToken: 'xapp-1-wrong-token-000' })
      .start(new ScriptedHandler(async () => answer('x')))
      .catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'platform_api' });
    expect((err as Error).message).toContain('SLACK_APP_TOKEN');
  });

  it('starts in Socket Mode with apps.connections.open and the app token, and stops cleanly', async () => {
    const a = adapter({ mode: 'socket' });
    await a.start(new ScriptedHandler(async () => answer('x')));
    await fake.socket.waitForConnection();
    const open = fake.callsTo('apps.connections.open').at(-1)!;
    expect(open.token).toBe(fake.appToken);
    expect(fake.callsTo('auth.test').at(-1)!.token).toBe(fake.botToken);
    await a.stop();
  });
});
