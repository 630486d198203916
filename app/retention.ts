/** What `threadlab purge` deletes from, and `threadlab start`'s timed retention. */
import type { Config } from '../src/config/index.js';
import type { Logger } from '../src/logger.js';
import { createParticipantIndex } from '../src/governance/retention/retention-index.js';
import type { ParticipantLookup } from '../src/governance/retention/retention.js';
import type { RetentionSource } from '../src/ports/retention-source.js';
import { MemoryRetention } from '../src/governance/retention/retention-memory.js';
import { ScheduleRetention } from '../src/governance/retention/retention-schedules.js';
import { retentionSweeperFor, type RetentionSweeper } from '../src/governance/retention/retention-sweeper.js';
import { webHistoryRetention, webSurfaceHistories } from '../adapters/web/web-retention.js';
import { ContainerRetention, liveThreadHashes } from '../sandbox/container-retention.js';
import { savedStateRetention, threadFilesRetention } from '../sandbox/mirror-retention.js';
import { createDocker } from '../sandbox/docker-client.js';
import type { Role } from './roles.js';
import { conversationStore, sharedState } from './state.js';

/** What `threadlab purge` deletes from, and what it asks (see {@link createPurgeSources}). */
export interface PurgeSources {
  /** In the order a thread's data must go. */
  sources: RetentionSource[];
  /** Who wrote in which thread, for `--user`. */
  participants: ParticipantLookup;
  /** Hashes of the threads with a live sandbox container on this engine (an idle purge leaves them). */
  liveHashes: () => Promise<Set<string>>;
  /** False without REDIS_URL: conversation memory then lives in the bot process, out of this one's reach. */
  memoryReachable: boolean;
  close(): Promise<void>;
}

/**
 * Every place that holds a thread's data, for `threadlab purge`: its schedules (in Redis), a live container (or
 * the bot would write its files back), the host copies of its files and saved state, conversation memory (in
 * Redis), the web chat's history, and last the who-wrote index, which the others' idle purge asks which threads
 * are idle.
 */
export async function createPurgeSources(config: Config, logger: Logger): Promise<PurgeSources> {
  const index = createParticipantIndex(config.dataDir);
  const docker = createDocker(config.sandbox.dockerHost);
  const state = await sharedState(config);
  const store = state.shared ? conversationStore(state, config, logger) : undefined;
  // Schedules first, so none fires into a thread while its data goes (in Redis only: else in the bot's process).
  const scheduler = store ? state.scheduler(logger.child({ component: 'scheduler' })) : undefined;
  const sources: RetentionSource[] = [
    ...(scheduler ? [new ScheduleRetention({ scheduler, idleKeys: (c) => index.idleKeys(c) })] : []),
    new ContainerRetention({ docker }),
    threadFilesRetention(config.dataDir, (name) => index.keyOf(name)),
    ...(store ? [new MemoryRetention({ store, idleKeys: (c) => index.idleKeys(c), where: 'Redis' })] : []),
    webHistoryRetention(config.dataDir),
    index,
  ];
  return {
    sources,
    participants: index,
    liveHashes: () => liveThreadHashes(docker),
    memoryReachable: store !== undefined,
    close: async () => {
      await scheduler?.close();
      await store?.close();
    },
  };
}

/** `threadlab start`'s timed retention for a role (THREADLAB_RETENTION_*), or undefined with nothing to sweep. */
export function createRetentionSweeper(options: {
  config: Config;
  logger: Logger;
  role: Role;
}): RetentionSweeper | undefined {
  const { config } = options;
  let docker: ReturnType<typeof createDocker> | undefined;
  return retentionSweeperFor({
    ...options,
    sources: {
      state: () => savedStateRetention(config.dataDir),
      histories: webSurfaceHistories(config),
      liveHashes: () => liveThreadHashes((docker ??= createDocker(config.sandbox.dockerHost))),
    },
  });
}
