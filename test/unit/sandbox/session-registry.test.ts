import { describe, expect, it } from 'vitest';
import type { LiveContainer } from '../../../sandbox/live-container.js';
import { threadHash } from '../../../src/domain/thread-key.js';
import { SessionRegistry, type Session } from '../../../sandbox/session-registry.js';

const live = (startedMs: number) => ({ startedMs, isAlive: true }) as unknown as LiveContainer;

function registry(expired: [string, string][] = []) {
  return new SessionRegistry({
    dataDir: '/tmp/unused',
    idleTtlMs: 1000,
    maxAgeMs: 5000,
    onExpire: (session: Session, reason: string) => expired.push([session.key, reason]),
  });
}

describe('SessionRegistry', () => {
  it('hashes keys for labels and mirror directories', () => {
    expect(threadHash('slack:T1:C1:123.4')).toMatch(/^[0-9a-f]{24}$/);
    expect(threadHash('a')).not.toBe(threadHash('b'));
    const r = registry();
    expect(r.get('k').mirror.root).toBe(`/tmp/unused/${threadHash('k')}`);
    expect(r.get('k')).toBe(r.get('k'));
  });

  it('serialises operations of one session and counts them as busy', async () => {
    const r = registry();
    const s = r.get('k');
    const order: string[] = [];
    const slow = r.serialize(s, async () => {
      await new Promise((res) => setTimeout(res, 20));
      order.push('first');
    });
    const fast = r.serialize(s, async () => {
      order.push('second');
    });
    expect(s.busy).toBe(2);
    await Promise.all([slow, fast]);
    expect(order).toEqual(['first', 'second']);
    expect(s.busy).toBe(0);
    await expect(
      r.serialize(s, async () => {
        throw new Error('x');
      }),
    ).rejects.toThrow('x');
    await expect(r.serialize(s, async () => 'still serving')).resolves.toBe('still serving');
  });

  it('picks the least recently used idle live session', () => {
    const r = registry();
    const [a, b, c] = ['a', 'b', 'c'].map((k) => r.get(k)) as [Session, Session, Session];
    a.live = live(0);
    a.lastUsedMs = 10;
    b.live = live(0);
    b.lastUsedMs = 5;
    b.busy = 1;
    c.live = live(0);
    c.lastUsedMs = 20;
    expect(r.liveCount()).toBe(3);
    expect(r.leastRecentlyUsed(c)?.key).toBe('a');
    expect(r.leastRecentlyUsed(a)?.key).toBe('c');
  });

  it('expires idle sessions and sessions past their maximum age, never busy ones', () => {
    const expired: [string, string][] = [];
    const r = registry(expired);
    const now = 100_000;
    const idle = r.get('idle');
    idle.live = live(now - 2000);
    idle.lastUsedMs = now - 1500;
    const old = r.get('old');
    old.live = live(now - 6000);
    old.lastUsedMs = now - 10;
    const busy = r.get('busy');
    busy.live = live(now - 9000);
    busy.lastUsedMs = now - 9000;
    busy.busy = 1;
    const fresh = r.get('fresh');
    fresh.live = live(now - 100);
    fresh.lastUsedMs = now - 100;
    r.get('dormant').lastUsedMs = 0;
    r.sweep(now);
    expect(expired.map(([k]) => k)).toEqual(['idle', 'old']);
    expect(expired[0]?.[1]).toMatch(/idle for 1\.5 s/);
    expect(expired[1]?.[1]).toMatch(/maximum age/);
  });

  it('a session whose variables are saved goes after the short idle time; one that would lose something waits for the long one', () => {
    const expired: [string, string][] = [];
    const r = new SessionRegistry({
      dataDir: '/tmp/unused',
      idleTtlMs: 1000,
      unsavedIdleTtlMs: 60_000,
      isSaved: (s) => !s.stateDirty && !s.stateIncomplete && !s.holdsUnsavedSession,
      maxAgeMs: 600_000,
      onExpire: (session: Session, reason: string) => expired.push([session.key, reason]),
    });
    const now = 1_000_000;
    const idleFor = (key: string, ms: number, change: (s: Session) => void = () => undefined) => {
      const s = r.get(key);
      s.live = live(now - ms);
      s.lastUsedMs = now - ms;
      change(s);
    };
    idleFor('saved', 2000);
    idleFor('dirty', 2000, (s) => (s.stateDirty = true));
    idleFor('failed', 2000, (s) => (s.stateIncomplete = true));
    idleFor('r-session', 2000, (s) => (s.holdsUnsavedSession = true));
    idleFor('failed-long-ago', 61_000, (s) => (s.stateIncomplete = true));
    r.sweep(now);
    expect(expired.map(([k]) => k)).toEqual(['saved', 'failed-long-ago']);
    expect(r.idleTtlOf(r.get('dirty'))).toBe(60_000);
    expect(r.idleTtlOf(r.get('saved'))).toBe(1000);
  });
});

describe('SessionRegistry: idle kernels go lean', () => {
  function leanRegistry(kernelIdleMs: number, lean: [string, number][]) {
    return new SessionRegistry({
      dataDir: '/tmp/unused',
      idleTtlMs: 300_000,
      unsavedIdleTtlMs: 3_600_000,
      isSaved: (s) => !s.stateDirty && !s.stateIncomplete && !s.holdsUnsavedSession,
      maxAgeMs: 86_400_000,
      onExpire: () => undefined,
      kernelIdleMs,
      onKernelIdle: (session, idleMs) => lean.push([session.key, idleMs]),
    });
  }

  it('only a live, idle, saved session whose kernel is not lean yet, never a busy one', () => {
    const lean: [string, number][] = [];
    const r = leanRegistry(60_000, lean);
    const now = 10_000_000;
    const idleFor = (key: string, ms: number, change: (s: Session) => void = () => undefined) => {
      const s = r.get(key);
      s.live = live(now - ms);
      s.lastUsedMs = now - ms;
      change(s);
    };
    idleFor('saved', 61_000);
    idleFor('recent', 59_000);
    idleFor('busy', 61_000, (s) => (s.busy = 1));
    idleFor('dirty', 61_000, (s) => (s.stateDirty = true));
    idleFor('not-all-saved', 61_000, (s) => (s.stateIncomplete = true));
    idleFor('r-session', 61_000, (s) => (s.holdsUnsavedSession = true));
    idleFor('already-lean', 61_000, (s) => (s.leanReason = 'idle'));
    r.get('no-container').lastUsedMs = now - 61_000;
    r.sweep(now);
    expect(lean).toEqual([['saved', 61_000]]);
  });

  it('never with THREADLAB_SANDBOX_KERNEL_IDLE_MS=0; the expiry comes first once it is due', () => {
    const lean: [string, number][] = [];
    const now = 10_000_000;
    const off = leanRegistry(0, lean);
    const s = off.get('k');
    s.live = live(now - 1000);
    s.lastUsedMs = now - 200_000;
    off.sweep(now);
    expect(lean).toEqual([]);
    const expired: string[] = [];
    const both = new SessionRegistry({
      dataDir: '/tmp/unused',
      idleTtlMs: 1000,
      maxAgeMs: 86_400_000,
      onExpire: (session) => expired.push(session.key),
      kernelIdleMs: 1000,
      onKernelIdle: (session, idleMs) => lean.push([session.key, idleMs]),
    });
    const t = both.get('t');
    t.live = live(now - 5000);
    t.lastUsedMs = now - 2000;
    both.sweep(now);
    expect(expired).toEqual(['t']);
    expect(lean).toEqual([]);
  });
});
