/** The read-only SQL data sources of THREADLAB_SOURCES_FILE (docs/data-sources.md), on their Postgres edge. */
import type { Config } from '../src/config/index.js';
import type { Logger } from '../src/logger.js';
import { PostgresDataSources } from '../adapters/postgres/postgres-data-sources.js';

/** The Postgres edge of the configured data sources; every secret of the configuration is scrubbed from its words. */
export function createSources(config: Config, logger: Logger): PostgresDataSources {
  return new PostgresDataSources({
    sources: config.sources,
    secrets: config.secrets,
    logger: logger.child({ component: 'sources' }),
  });
}
