import { join } from 'node:path';
import { WebHistoryRetention } from '../adapters/web/web-retention.js';
import { liveThreadHashes } from '../sandbox/container-retention.js';
import { hashKey } from '../sandbox/session-registry.js';
import type { Config } from '../src/config.js';
import { StateRetention } from '../src/governance/retention-files.js';
import { createParticipantIndex } from '../src/governance/retention-index.js';
import type { RetentionSource } from '../src/governance/retention.js';
import { MEMORY_TTL_MS } from '../src/interpreter/memory.js';
import { RetentionSweeper, type SweepKind } from '../src/governance/retention-sweeper.js';
import type { Logger } from '../src/logger.js';
import type { Role } from '../src/main.js';
import { createDocker } from '../sandbox/docker-client.js';

/**
 * The timed retention of `threadlab start` for a role, or undefined when it has nothing to sweep. Each kind
 * is swept where it lives: saved state beside the thread files on the machine that runs code (worker, all);
 * the web chat's history in the one process that serves it (all); the who-wrote index where messages arrive
 * (gateway, all); the audit file by the processes that write it (worker, all; the gateway runs no code and
 * calls no model, so it writes none).
 */
export function createRetentionSweeper(options: {
  config: Config;
  logger: Logger;
  role: Role;
}): RetentionSweeper | undefined {
  const { config, role } = options;
  const runsCode = role !== 'gateway';
  const { stateMs, webHistoryMs, auditMs } = config.retention;
  const kinds: SweepKind[] = [];
  if (stateMs !== undefined && runsCode) {
    const root = join(config.dataDir, 'sandbox-files');
    kinds.push({ kind: 'state', maxAgeMs: stateMs, source: new StateRetention({ root, nameOf: hashKey }) });
  }
  if (webHistoryMs !== undefined && role === 'all' && config.web.enabled) {
    const source = new WebHistoryRetention(join(config.dataDir, 'web'));
    kinds.push({ kind: 'web history', maxAgeMs: webHistoryMs, source });
  }
  if (role !== 'worker') kinds.push(indexKind(config));
  const audit =
    runsCode && auditMs !== undefined && config.audit.destination === 'file'
      ? { path: config.audit.path, maxAgeMs: auditMs }
      : undefined;
  if (kinds.length === 0 && !audit) return undefined;
  // A gateway holds no containers (and needs no Docker); its index entries outlive any session (indexKind).
  const docker = runsCode ? createDocker(config.sandbox.dockerHost) : undefined;
  return new RetentionSweeper({
    kinds,
    ...(audit ? { audit } : {}),
    liveHashes: () => (docker ? liveThreadHashes(docker) : Promise.resolve(new Set<string>())),
    logger: options.logger.child({ component: 'retention' }),
  });
}

/**
 * The who-wrote index (retention-index.ts) names users, so an entry goes once nothing of its thread is left
 * for an erasure to find: after the longest any of the thread's data is kept past its last message (the files,
 * THREADLAB_FILES_TTL_MS; the conversation memory, 7 days). No setting of its own: it follows the data. A web
 * thread's entry stays while the web history is kept longer than that.
 */
export function indexKind(config: Config): SweepKind {
  const maxAgeMs = Math.max(config.sandbox.filesTtlMs, MEMORY_TTL_MS);
  const { webHistoryMs } = config.retention;
  const webKept = config.web.enabled && (webHistoryMs === undefined || webHistoryMs > maxAgeMs);
  const index = createParticipantIndex(config.dataDir);
  const source: RetentionSource = {
    name: index.name,
    purgeThread: (key) => index.purgeThread(key),
    purgeIdle: (cutoffMs, idle) =>
      index.purgeIdle(cutoffMs, { ...idle, ...(webKept ? { keepKey: (key: string) => key.startsWith('web:') } : {}) }),
  };
  return { kind: 'who wrote', maxAgeMs, source };
}
