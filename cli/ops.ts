import type { Config } from '../src/config/index.js';
import type { Logger } from '../src/logger.js';
import type { ThreadlabMetrics } from '../src/ops/metrics.js';
import { startOpsServer, type OpsServer } from '../src/ops/ops-server.js';
import { createDocker } from '../app/sandbox-kit.js';
import { pingRedis } from '../adapters/redis/connection.js';

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
  const port = config.ops.metricsPort;
  if (port === undefined) return undefined;
  const docker = runsCode ? createDocker(config.sandbox.dockerHost) : undefined;
  const server = await startOpsServer({
    port,
    host: config.ops.metricsHost,
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
      if (config.redis.url) {
        checks.redis = await pingRedis(config.redis.url).then(
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
