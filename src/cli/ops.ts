import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { ThreadlabMetrics } from '../ops/metrics.js';
import { startOpsServer, type OpsServer } from '../ops/ops-server.js';
import { createDocker, pingRedis } from './infra.js';

/**
 * Serves /healthz and /metrics when THREADLAB_METRICS_PORT is set. Health: the Docker engine (roles
 * that run code) and Redis (when configured) answer.
 */
export async function startOps(options: {
  config: Config;
  logger: Logger;
  metrics: ThreadlabMetrics;
  runsCode: boolean;
}): Promise<OpsServer | undefined> {
  const { config, logger, metrics, runsCode } = options;
  const port = config.env.THREADLAB_METRICS_PORT;
  if (port === undefined) return undefined;
  const docker = runsCode ? createDocker(config.env.DOCKER_HOST) : undefined;
  const server = await startOpsServer({
    port,
    host: config.env.THREADLAB_METRICS_HOST,
    registry: metrics.registry,
    logger,
    health: async () => {
      const checks: Record<string, { ok: boolean; detail?: string }> = {};
      if (docker) {
        checks.docker = await docker.ping().then(
          () => ({ ok: true }),
          (err: Error) => ({ ok: false, detail: err.message }),
        );
      }
      if (config.env.REDIS_URL) {
        checks.redis = await pingRedis(config.env.REDIS_URL).then(
          () => ({ ok: true }),
          (err: Error) => ({ ok: false, detail: err.message }),
        );
      }
      return { ok: Object.values(checks).every((c) => c.ok), checks };
    },
  });
  logger.info({ url: server.url }, 'serving /healthz and /metrics');
  return server;
}
