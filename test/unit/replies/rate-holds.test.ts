import { describe, expect, it } from 'vitest';
import { passHold, RateHolds, retryAfterMs } from '../../../src/replies/rate-holds.js';
import { ThreadlabError } from '../../../src/domain/errors.js';

describe('RateHolds: one rule for every platform', () => {
  it('holds a key for its Retry-After, others not; a global limit holds every key', () => {
    const holds = new RateHolds();
    holds.hold('chat.postMessage', 1000);
    expect(holds.waitMs('chat.postMessage')).toBeGreaterThan(900);
    expect(holds.waitMs('chat.update')).toBe(0);
    holds.holdAll(2000);
    expect(holds.waitMs('chat.update')).toBeGreaterThan(1900);
  });

  it('a shorter hold never shortens a longer one', () => {
    const holds = new RateHolds();
    holds.hold('m', 5000);
    holds.hold('m', 1000);
    expect(holds.waitMs('m')).toBeGreaterThan(4000);
  });

  it('keeps at most maxKeys holds, letting go of the one that ends soonest', () => {
    const holds = new RateHolds({ maxKeys: 3 });
    holds.hold('a', 100_000);
    holds.hold('soon', 1_000);
    holds.hold('c', 100_000);
    holds.hold('d', 100_000);
    expect(holds.size).toBe(3);
    expect(holds.waitMs('soon')).toBe(0);
    expect(holds.waitMs('a')).toBeGreaterThan(0);
  });

  it('reads Retry-After in seconds, at least a second, with a default for junk', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs('0.2')).toBe(1000);
    expect(retryAfterMs(null)).toBe(1000);
    expect(retryAfterMs('soon')).toBe(1000);
    expect(retryAfterMs('-4')).toBe(1000);
  });

  it('a live status meeting a hold is refused at once; an answer waits it out', async () => {
    await expect(passHold({ waitMs: 500, liveStatus: true, platform: 'Slack', what: 'chat.update' })).rejects.toSatisfy(
      (err: unknown) =>
        err instanceof ThreadlabError && err.code === 'platform_rate_limited' && err.retryAfterMs === 500,
    );
    const started = Date.now();
    await passHold({ waitMs: 300, platform: 'Slack', what: 'chat.postMessage' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });
});
