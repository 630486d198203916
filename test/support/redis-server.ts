// The private redis-server helper lives with the CLI (`threadlab bench queue` uses it too).
import { freePort as freePortIn } from '../../cli/free-port.js';
import { startPrivateRedis as startIn, type PrivateRedis } from '../../cli/private-redis.js';

export type { PrivateRedis };

/**
 * Test files run in parallel workers: each picks ports from its own slice of the range below the
 * ephemeral ports (the global set-up, outside any worker, from slice 0), so two workers never race
 * for one port between choosing it and binding it.
 */
const SLICES = 16;
const slice = () => ({ index: Number(process.env.VITEST_POOL_ID ?? 0) % SLICES, count: SLICES });

export const freePort = (): Promise<number> => freePortIn(slice());

export const startPrivateRedis = async (port?: number): Promise<PrivateRedis> => startIn(port ?? (await freePort()));
