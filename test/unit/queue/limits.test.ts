import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import {
  DEFAULT_LIMITS,
  decide,
  limitSubject,
  queueLimits,
  refusal,
  type QueueLimits,
} from '../../../src/queue/limits.js';
import { MemoryLimiter } from '../../../src/queue/memory-limiter.js';
import { SeenIds } from '../../../src/queue/dedupe.js';

const limits: QueueLimits = {
  ...DEFAULT_LIMITS,
  userMaxConcurrent: 2,
  userMaxPerMinute: 3,
  workspaceMaxConcurrent: 3,
  workspaceMaxPerMinute: 100,
  maxQueueLength: 10,
};

describe('limits', () => {
  it('refuses the fourth job of a user within a minute, with the time left in the window', () => {
    let now = 1_000_000;
    const limiter = new MemoryLimiter(limits, () => now);
    const sam = { user: 'web:local:sam', workspace: 'web:local' };
    for (let i = 0; i < 3; i++) {
      expect(limiter.tryAdmit(sam)).toBeUndefined();
      limiter.release(sam);
      now += 10_000;
    }
    const refused = limiter.tryAdmit(sam);
    expect(refused).toMatchObject({ reason: 'rate_limited', limit: 'user_rate', retryAfterMs: 30_000 });
    expect(refused?.message).toBe(
      "Sorry, I can't start this now. You have sent 3 requests in the last minute, which is my limit per person. Please try again in about 30 seconds.",
    );
    now += 30_000;
    expect(limiter.tryAdmit(sam)).toBeUndefined();
  });

  it('counts concurrent jobs until released, per user and per workspace', () => {
    const limiter = new MemoryLimiter(limits);
    const a = { user: 'a', workspace: 'w' };
    const b = { user: 'b', workspace: 'w' };
    expect(limiter.tryAdmit(a)).toBeUndefined();
    expect(limiter.tryAdmit(a)).toBeUndefined();
    expect(limiter.tryAdmit(a)).toMatchObject({ limit: 'user_concurrent', retryAfterMs: 15_000 });
    expect(limiter.tryAdmit(b)).toBeUndefined();
    expect(limiter.tryAdmit(b)).toMatchObject({ limit: 'workspace_concurrent' });
    limiter.release(a);
    expect(limiter.tryAdmit(b)).toBeUndefined();
    expect(limiter.length).toBe(3);
  });

  it('checks the queue length first and says queue_full', () => {
    const counts = {
      userInFlight: 0,
      workspaceInFlight: 0,
      queueLength: 10,
      userInWindow: 0,
      userWindowLeftMs: 0,
      workspaceInWindow: 0,
      workspaceWindowLeftMs: 0,
    };
    expect(decide(counts, limits)).toMatchObject({ reason: 'queue_full', limit: 'queue_length' });
    expect(decide({ ...counts, queueLength: 9 }, limits)).toBeUndefined();
  });

  it('words minutes for long waits and never hints below one second', () => {
    expect(refusal('workspace_rate', 150_000, limits).message).toContain('in about 3 minutes');
    expect(refusal('user_rate', 10, limits).retryAfterMs).toBe(1000);
  });

  it('reads the THREADLAB_* limits', () => {
    expect(
      queueLimits(
        loadConfig({
          THREADLAB_USER_MAX_CONCURRENT: '1',
          THREADLAB_USER_MAX_PER_MINUTE: '2',
          THREADLAB_WORKSPACE_MAX_CONCURRENT: '3',
          THREADLAB_WORKSPACE_MAX_PER_MINUTE: '4',
          THREADLAB_QUEUE_MAX_LENGTH: '5',
        }).queue,
      ),
    ).toMatchObject({
      userMaxConcurrent: 1,
      userMaxPerMinute: 2,
      workspaceMaxConcurrent: 3,
      workspaceMaxPerMinute: 4,
      maxQueueLength: 5,
    });
  });

  it('charges a schedule firing to its workspace’s schedules, bounded by THREADLAB_SCHEDULE_MAX_FIRINGS_PER_MINUTE', () => {
    let now = 1_000_000;
    const limiter = new MemoryLimiter({ ...limits, scheduleFiringsPerMinute: 4 }, () => now);
    const thread = { platform: 'slack' as const, workspace: 'T1', channel: 'C1', thread: '1.0' };
    const message = { id: 'm', thread, user: { id: 'UANN' }, text: '', attachments: [], receivedAtMs: 0 };
    const origin = { kind: 'schedule' as const, scheduleId: 'sch-1', label: 'every 5s' };
    const firing = limitSubject(message, origin);
    expect(firing).toEqual({ user: 'slack:T1#schedules', workspace: 'slack:T1', firing: true });
    // Four firings in a minute, more than Ann's own 3 requests; her own requests are untouched by them.
    for (let i = 0; i < 4; i++) {
      expect(limiter.tryAdmit(firing)).toBeUndefined();
      limiter.release(firing);
    }
    expect(limiter.tryAdmit(firing)).toMatchObject({ reason: 'rate_limited', limit: 'user_rate' });
    const ann = limitSubject(message);
    for (let i = 0; i < 2; i++) expect(limiter.tryAdmit(ann)).toBeUndefined();
    expect(limiter.tryAdmit(ann)).toMatchObject({ limit: 'user_concurrent' });
    // A new window: firings are admitted again.
    now += 60_000;
    expect(limiter.tryAdmit(firing)).toBeUndefined();
    expect(
      queueLimits(loadConfig({ THREADLAB_SCHEDULE_MAX_FIRINGS_PER_MINUTE: '7' }).queue).scheduleFiringsPerMinute,
    ).toBe(7);
    expect(queueLimits(loadConfig({}).queue).scheduleFiringsPerMinute).toBe(30);
    expect(() => loadConfig({ THREADLAB_SCHEDULE_MAX_FIRINGS_PER_MINUTE: '0' })).toThrow(
      /THREADLAB_SCHEDULE_MAX_FIRINGS_PER_MINUTE/,
    );
  });

  it('forgets a seen id after its TTL', () => {
    let now = 0;
    const seen = new SeenIds(1000, () => now);
    expect(seen.firstSight('e1')).toBe(true);
    expect(seen.firstSight('e1')).toBe(false);
    now = 1001;
    expect(seen.firstSight('e1')).toBe(true);
  });
});
