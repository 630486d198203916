import { join } from 'node:path';
import { WebHistoryRetention } from '../../adapters/web/web-retention.js';
import { liveThreadHashes } from '../../sandbox/container-retention.js';
import { hashKey } from '../../sandbox/session-registry.js';
import type { Config } from '../config.js';
import { StateRetention } from '../governance/retention-files.js';
import { RetentionSweeper, type SweepKind } from '../governance/retention-sweeper.js';
import type { Logger } from '../logger.js';
import type { Role } from '../main.js';
import { createDocker } from './infra.js';

/**
 * The timed retention of `threadlab start` for a role, or undefined when it has nothing to sweep. Each kind
 * is swept where it lives: saved state beside the thread files on the machine that runs code (worker, all);
 * the web chat's history in the one process that serves it (all); the audit file by the processes that write
 * it (worker, all; the gateway runs no code and calls no model, so it writes none).
 */
export function createRetentionSweeper(options: {
  config: Config;
  logger: Logger;
  role: Role;
}): RetentionSweeper | undefined {
  const { config, role } = options;
  if (role === 'gateway') return undefined;
  const { stateMs, webHistoryMs, auditMs } = config.retention;
  const kinds: SweepKind[] = [];
  if (stateMs !== undefined) {
    const root = join(config.dataDir, 'sandbox-files');
    kinds.push({ kind: 'state', maxAgeMs: stateMs, source: new StateRetention({ root, nameOf: hashKey }) });
  }
  if (webHistoryMs !== undefined && role === 'all' && config.web.enabled) {
    const source = new WebHistoryRetention(join(config.dataDir, 'web'));
    kinds.push({ kind: 'web history', maxAgeMs: webHistoryMs, source });
  }
  const audit =
    auditMs !== undefined && config.audit.destination === 'file'
      ? { path: config.audit.path, maxAgeMs: auditMs }
      : undefined;
  if (kinds.length === 0 && !audit) return undefined;
  const docker = createDocker(config.sandbox.dockerHost);
  return new RetentionSweeper({
    kinds,
    ...(audit ? { audit } : {}),
    liveHashes: () => liveThreadHashes(docker),
    logger: options.logger.child({ component: 'retention' }),
  });
}
