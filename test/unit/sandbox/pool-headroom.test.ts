import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { LiveContainer } from '../../../sandbox/live-container.js';
import { MIN_RESERVE_BYTES, memoryHeadroom } from '../../../sandbox/pool-headroom.js';
import { WarmPool } from '../../../sandbox/warm-pool.js';

const MiB = 1024 * 1024;
const logger = pino({ level: 'silent' });

/** A host whose available memory falls by `perStartBytes` with each container started, as a real one does. */
function host(freeBytes: number, perStartBytes: number) {
  const state = { freeBytes, started: 0, removed: 0 };
  const launch = async () => {
    state.started += 1;
    state.freeBytes -= perStartBytes;
    return {
      isAlive: true,
      connection: { closed: new Promise<void>(() => {}) },
      remove: async () => {
        state.removed += 1;
        state.freeBytes += perStartBytes;
      },
    } as unknown as LiveContainer;
  };
  return { state, launch, free: () => state.freeBytes };
}

describe('memoryHeadroom', () => {
  it('counts the sandboxes that fit above the reserve: a quarter of the host, at least 1 GiB', () => {
    const total = 16 * 1024 * MiB; // reserve 4 GiB
    const at = (freeBytes: number) =>
      memoryHeadroom({ freeBytes: () => freeBytes, totalBytes: total, perSandboxBytes: 100 * MiB })();
    expect(at(4 * 1024 * MiB + 1000 * MiB)).toBe(10);
    expect(at(4 * 1024 * MiB + 99 * MiB)).toBe(0);
    expect(at(1024 * MiB)).toBe(0); // below the reserve: never negative
    const small = memoryHeadroom({
      freeBytes: () => MIN_RESERVE_BYTES + 300 * MiB,
      totalBytes: 2048 * MiB,
      perSandboxBytes: 100 * MiB,
    });
    expect(small()).toBe(3); // a 2 GiB host keeps 1 GiB, not a quarter of it
  });
});

describe('WarmPool bounded by the host memory', () => {
  it('grows with demand only as far as the memory has room, keeps its size whatever the memory, and says it stopped', async () => {
    const per = 100 * MiB;
    const total = 8 * 1024 * MiB; // reserve 2 GiB
    const h = host(2048 * MiB + 5 * per, per); // room for 5 more sandboxes
    const pool = new WarmPool({
      size: 2,
      maxSize: 50,
      logger,
      launch: h.launch,
      headroom: memoryHeadroom({ freeBytes: h.free, totalBytes: total, perSandboxBytes: per }),
    });
    await pool.whenFull();
    expect(pool.available).toBe(2);
    for (let i = 0; i < 50; i += 1) pool.take(); // a burst of 50: the pool wants 50 back
    expect(pool.target).toBe(50);
    await pool.whenFull(); // resolves where the memory bound it, rather than waiting for 50
    expect(pool.memoryBound).toBe(true);
    // 2 taken from the first fill (their memory is the sessions' now), 3 more fit beside them.
    expect(pool.available).toBe(3);
    expect(h.free()).toBeLessThan(2048 * MiB + per);
    await pool.close();
  });

  it('fills to its size even on a host with no room to spare', async () => {
    const h = host(512 * MiB, 100 * MiB);
    const pool = new WarmPool({
      size: 2,
      maxSize: 10,
      logger,
      launch: h.launch,
      headroom: memoryHeadroom({ freeBytes: h.free, totalBytes: 4096 * MiB, perSandboxBytes: 100 * MiB }),
    });
    await pool.whenFull();
    expect(pool.available).toBe(2);
    for (let i = 0; i < 10; i += 1) pool.take();
    await pool.whenFull();
    expect(pool.available).toBe(2);
    expect(pool.memoryBound).toBe(true);
    await pool.close();
  });

  it('without a bound, grows to the demand it saw', async () => {
    const h = host(0, 100 * MiB);
    const pool = new WarmPool({ size: 2, maxSize: 12, logger, launch: h.launch });
    await pool.whenFull();
    for (let i = 0; i < 12; i += 1) pool.take();
    await pool.whenFull();
    expect(pool.available).toBe(12);
    expect(pool.memoryBound).toBe(false);
    await pool.close();
  });
});
