import type { Logger } from '../src/logger.js';
import type { SandboxLimits } from './container-spec.js';
import { loadDataStack } from './data-stack.js';
import { memoryHeadroom } from './pool-headroom.js';
import { replaceKernel } from './lean-kernels.js';
import type { LiveContainer } from './live-container.js';
import { PoolMemory } from './pool-memory.js';
import { WarmPool, type PoolObserver } from './warm-pool.js';

export interface SandboxPoolOptions {
  limits: Pick<SandboxLimits, 'poolSize' | 'poolMax' | 'graceMs'>;
  /** Starts one container for the pool. */
  launch: () => Promise<LiveContainer>;
  /** Where what the pool learned about demand is kept across restarts. @defaultValue none: not kept */
  demandFile?: string;
  /** How long a session start counts as demand. @defaultValue the pool's (10 min) */
  demandWindowMs?: number;
  /** How many more sandboxes the host has room for. @defaultValue memoryHeadroom(): the host's available memory */
  headroom?: () => number;
  observer?: PoolObserver;
  logger: Logger;
}

/**
 * The sandbox's warm pool: sized by THREADLAB_SANDBOX_POOL_SIZE and _POOL_MAX, its containers primed with the data
 * stack while sessions begin and made lean again once that demand aged out, and (with a demand file) what it learned
 * about demand kept for the next start.
 */
export function createSandboxPool(options: SandboxPoolOptions): { pool: WarmPool; memory: PoolMemory | undefined } {
  const { limits, logger } = options;
  const pool = new WarmPool({
    size: limits.poolSize,
    // THREADLAB_SANDBOX_POOL_SIZE=0 turns the pool off, growth included.
    maxSize: limits.poolSize === 0 ? 0 : (limits.poolMax ?? limits.poolSize),
    ...(options.demandWindowMs ? { demandWindowMs: options.demandWindowMs } : {}),
    launch: options.launch,
    // Demand grows the pool up to THREADLAB_SANDBOX_POOL_MAX, and only as far as the host's memory has room.
    headroom: options.headroom ?? memoryHeadroom(),
    prime: async (live) => {
      const outcome = await loadDataStack(live.connection, limits.graceMs);
      if ('failed' in outcome) throw new Error(outcome.failed);
    },
    // Once the demand it was primed for aged out, a pooled container waits lean again.
    unprime: async (live) => {
      const replaced = await replaceKernel(live);
      if ('said' in replaced) throw new Error(replaced.said);
    },
    logger,
    // Called on session starts only, never while the pool is made: `memory` is there by then.
    onDemand: () => memory?.changed(),
    ...(options.observer ? { observer: options.observer } : {}),
  });
  const memory =
    options.demandFile && pool.maxSize > 0 ? new PoolMemory({ path: options.demandFile, pool, logger }) : undefined;
  return { pool, memory };
}
