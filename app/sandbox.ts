/** The Docker sandbox from configuration, with the egress gateway when THREADLAB_EGRESS_ALLOW is set. */
import type { Config } from '../src/config/index.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { Logger } from '../src/logger.js';
import type { ThreadlabMetrics } from '../src/ops/metrics.js';
import type { Sandbox } from '../src/ports/sandbox.js';
import { EgressGateway } from '../src/egress/gateway.js';
import { auditLogFor } from '../src/governance/audit/audit-sink.js';
import { auditedEgress } from '../src/governance/audit/audited-egress.js';
import { egressAuditLine } from '../src/governance/audit/audit-egress.js';
import { createDockerSandbox } from '../sandbox/index.js';
import { createDocker } from '../sandbox/docker-client.js';
import { sandboxImageTag } from '../sandbox/image-builder.js';
import { threadFilesDir } from '../sandbox/mirror-retention.js';
import { poolDemandFile } from '../sandbox/pool-demand-file.js';

/**
 * Creates and starts the Docker sandbox: checks the image, removes orphans, fills the warm pool. With
 * `rememberDemand` its pool saves what it learns about demand in the data directory and starts from it: the
 * bot's own processes (`threadlab start`) do; the CLI's daemon and eval do not, since their demand (one
 * person's commands) would replace the bot's record in a data directory they share.
 */
export async function createSandbox(
  config: Config,
  logger: Logger,
  options: { instanceId?: string; metrics?: ThreadlabMetrics; rememberDemand?: boolean } = {},
): Promise<Sandbox> {
  const { instanceId, metrics } = options;
  const egress = config.egress
    ? new EgressGateway({
        ...config.egress,
        logger: logger.child({ component: 'egress' }),
        ...(metrics ? { metrics: metrics.egress } : {}),
        onAudit: (record) => auditLogFor(config.audit, logger).write(egressAuditLine(record)),
      })
    : undefined;
  const sandbox = await createDockerSandbox({
    docker: createDocker(config.sandbox.dockerHost),
    image: config.sandbox.image ?? sandboxImageTag(),
    limits: config.sandbox,
    dataDir: threadFilesDir(config.dataDir),
    ...(options.rememberDemand ? { demandFile: poolDemandFile(config.dataDir) } : {}),
    runtime: config.sandbox.runtime,
    platform: config.sandbox.platform,
    logger: logger.child({ component: 'sandbox' }),
    ...(instanceId ? { instanceId } : {}),
    ...(metrics ? { observer: metrics.pool } : {}),
    ...(egress ? { egress: auditedEgress(egress) } : {}),
  });
  if (metrics) setInterval(() => metrics.pool.sessions(sandbox.liveSessions()), 5000).unref();
  return sandbox;
}

/** A sandbox for the gateway role, which never runs code: any use is a wiring bug, said plainly. */
export function noSandbox(): Sandbox {
  const fail = (): never => {
    throw new ThreadlabError(
      'internal',
      'This process runs the gateway role, which has no sandbox; jobs run on workers.',
    );
  };
  return {
    run: fail,
    putFile: fail,
    listFiles: fail,
    readFile: fail,
    previewFiles: fail,
    prepare: fail,
    reset: fail,
    isLive: () => false,
    environment: fail,
    close: async () => {},
  };
}
