import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeferredRemovals } from '../../../sandbox/deferred-removals.js';
import type { LiveContainer } from '../../../sandbox/live-container.js';

/** Containers that record when they were removed (by the fake clock). */
function containers() {
  const removedAt = new Map<string, number>();
  const make = (name: string) =>
    ({
      name,
      remove: async () => {
        removedAt.set(name, Date.now());
      },
    }) as unknown as LiveContainer;
  return { make, removedAt };
}

describe('DeferredRemovals', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('removes evicted containers once evictions have stopped for the quiet time, not while they go on', async () => {
    const c = containers();
    const removals = new DeferredRemovals({ quietMs: 2000, maxDelayMs: 30_000 });
    for (let i = 0; i < 5; i += 1) {
      await removals.remove(c.make(`e${i}`));
      await vi.advanceTimersByTimeAsync(1000); // an eviction a second: never quiet for 2 s
    }
    expect(c.removedAt.size).toBe(0);
    expect(removals.size).toBe(5);
    await vi.advanceTimersByTimeAsync(1000);
    expect(c.removedAt.size).toBe(5);
    expect(Math.min(...c.removedAt.values())).toBe(6000); // 2 s after the last eviction at 4 s
    expect(removals.size).toBe(0);
  });

  it('removes a container that waited the longest delay even while evictions go on', async () => {
    const c = containers();
    const removals = new DeferredRemovals({ quietMs: 2000, maxDelayMs: 5000 });
    for (let i = 0; i < 8; i += 1) {
      await removals.remove(c.make(`e${i}`));
      await vi.advanceTimersByTimeAsync(1000);
    }
    // e0 came at 0 s and went at 5 s, e3 at 3 s and 8 s: each after 5 s; those of 4 s and later still wait.
    expect(c.removedAt.get('e0')).toBe(5000);
    expect(c.removedAt.get('e3')).toBe(8000);
    expect(c.removedAt.has('e4')).toBe(false);
    expect(removals.size).toBe(4);
    await removals.close();
  });

  it('holds at most maxWaiting: one more is removed at once', async () => {
    const c = containers();
    const removals = new DeferredRemovals({ maxWaiting: 3 });
    for (let i = 0; i < 3; i += 1) await removals.remove(c.make(`e${i}`));
    expect(c.removedAt.size).toBe(0);
    await removals.remove(c.make('e3'));
    expect([...c.removedAt.keys()]).toEqual(['e3']);
    expect(removals.size).toBe(3);
    await removals.close();
  });

  it('removes at once when the host memory has no room for a container to linger', async () => {
    const c = containers();
    let room = 1;
    const removals = new DeferredRemovals({ headroom: () => room });
    await removals.remove(c.make('kept'));
    room = 0;
    await removals.remove(c.make('now'));
    expect([...c.removedAt.keys()]).toEqual(['now']);
    await removals.close();
    expect([...c.removedAt.keys()]).toEqual(['now', 'kept']);
  });

  it('close removes every waiting container, and later ones at once', async () => {
    const c = containers();
    const removals = new DeferredRemovals({});
    await removals.remove(c.make('a'));
    await removals.remove(c.make('b'));
    await removals.close();
    expect(c.removedAt.size).toBe(2);
    await removals.remove(c.make('late'));
    expect(c.removedAt.has('late')).toBe(true);
    expect(removals.size).toBe(0);
  });
});
