// The private PostgreSQL starter lives with the CLI (`threadlab bench sources` uses it too).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceSettings } from '../../src/config/sources.js';
import { SOURCE_DEFAULTS } from '../../src/config/sources.js';
import {
  startPrivatePostgres as startIn,
  type PostgresRole,
  type PrivatePostgres,
  type StartPostgresOptions,
} from '../../cli/private-postgres.js';
import { freePort } from './redis-server.js';

export type { PostgresRole, PrivatePostgres };

/**
 * A private, seeded PostgreSQL for one test file (initdb into a temp dir, as the postgres OS user under root), on a
 * free port of the worker's slice. Tests default to 20,000 sales rows, which starts in a few seconds.
 */
export const startPostgres = async (options: StartPostgresOptions = {}): Promise<PrivatePostgres> =>
  startIn({ salesRows: 20_000, ...options, port: options.port ?? (await freePort()) });

/** A source's settings on `role` of the private server, as THREADLAB_SOURCES_FILE would resolve them. */
export function sourceOn(
  pg: PrivatePostgres,
  role: PostgresRole,
  overrides: Partial<Omit<SourceSettings, 'connection'>> & { password?: string } = {},
): SourceSettings {
  const { password = role.password, ...rest } = overrides;
  return {
    name: 'sales',
    kind: 'postgres',
    allow: {},
    maxConnections: 2,
    limits: { statementTimeoutMs: 5000, maxRows: SOURCE_DEFAULTS.maxRows, maxBytes: SOURCE_DEFAULTS.maxBytes },
    ...rest,
    connection: { connectionString: pg.urlFor(role), password },
  };
}

/** One entry of THREADLAB_SOURCES_FILE as an admin writes it (the password named by `passwordEnv`, never inline). */
export interface SourceEntry {
  name: string;
  kind: 'postgres';
  url: string;
  passwordEnv: string;
  description?: string;
  allow?: unknown;
}

/** Writes THREADLAB_SOURCES_FILE for `sources` into `dir`; returns its path. */
export function writeSourcesFile(dir: string, sources: SourceEntry[]): string {
  const path = join(dir, 'sources.json');
  writeFileSync(path, JSON.stringify({ sources }));
  return path;
}
