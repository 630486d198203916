/**
 * Where the bot is no member (a user install used in a server without it), only the interaction's token reaches
 * the user, and Discord gives it 15 minutes ("Interaction tokens are valid for 15 minutes": interactions/
 * receiving-and-responding). The real discord.js adapter against the fake, with both clocks shortened: a run that
 * outlives the token says so through the webhook before it ends, and its answer then comes by DM, never lost and
 * never posted with the bot token where the bot is not.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { textReply } from '../../../src/domain/reply.js';
import { startHarness, type Harness } from './harness.js';

/** Shortened token lifetime (Discord: 900,000 ms) and warning (60,000 ms): the notice is due 2 s in. */
const LIFETIME_MS = 9_000;
const WARNING_MS = 7_000;

describe('Discord: a user-install run that outlives its interaction token', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('is announced through the webhook before the token ends, and its answer comes by DM', async () => {
    let release!: () => void;
    h = await startHarness(() => textReply('The long answer: 42.'), {
      adapter: { interactionTokenLifetimeMs: LIFETIME_MS, expiryWarningMs: WARNING_MS },
    });
    const { fake, handler } = h;
    fake.interactionTokenLifetimeMs = LIFETIME_MS;
    handler.hold = new Promise<void>((r) => (release = r));
    const issuedAtMs = Date.now();
    const interaction = fake.userInstallCommand({
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'take your time' }],
    });
    const token = String(interaction.token);
    const notice = await fake.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/webhooks/${fake.applicationId}/${token}` &&
        String(r.json?.content).includes('Still running'),
    );
    expect(notice.status).toBe(200);
    expect(notice.atMs - issuedAtMs).toBeLessThan(LIFETIME_MS);
    expect(String(notice.json.content)).toContain('direct message');
    // The run goes on past the token's end; then the answer is ready.
    await sleep(Math.max(0, issuedAtMs + LIFETIME_MS + 500 - Date.now()));
    release();
    const dm = await fake.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${fake.dmChannelId}/messages` &&
        String(r.json?.content).includes('The long answer: 42.'),
    );
    expect(dm.headers.authorization).toMatch(/^Bot /);
    // Nothing was written with the dead token, and the bot token never went where the bot is not.
    const late = fake.requests.filter(
      (r) => r.path.includes(token) && r.method !== 'GET' && r.atMs > issuedAtMs + LIFETIME_MS,
    );
    expect(late.filter((r) => r.status < 300)).toEqual([]);
    expect(fake.botTokenCallsAbout(fake.foreignChannelId)).toEqual([]);
    expect(fake.botTokenCallsAbout(fake.foreignGuildId)).toEqual([]);
  }, 60_000);
});
