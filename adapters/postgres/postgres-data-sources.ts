import type { SourceSettings } from '../../src/config/sources.js';
import { sourceAllows } from '../../src/config/source-access.js';
import type {
  DataSources,
  QueryFailure,
  QueryOutcome,
  QueryRequest,
  SourceSchema,
  SourceScope,
  SourceSummary,
} from '../../src/ports/data-sources.js';
import type { Logger } from '../../src/logger.js';
import { PostgresSource } from './postgres-source.js';

export interface PostgresDataSourcesOptions {
  sources: readonly SourceSettings[];
  /** Every secret of the configuration (config.secrets): scrubbed from every message, whatever its origin. */
  secrets: readonly string[];
  /** Each query's outcome (counts and kind, never the SQL or rows); an unreachable source as a warning. */
  logger?: Logger;
}

/**
 * The DataSources port on PostgreSQL (pg, rows streamed: stream-rows.ts): each configured source has its own bounded pool, opened on
 * first use; each source's `allow` decides which scopes see and use it. Credentials stay in here.
 */
export class PostgresDataSources implements DataSources {
  private readonly sources = new Map<string, PostgresSource>();
  private closed = false;

  constructor(private readonly options: PostgresDataSourcesOptions) {}

  list(scope: SourceScope): SourceSummary[] {
    return this.options.sources.filter((s) => sourceAllows(s.allow, scope)).map(summaryOf);
  }

  async describe(source: string, scope: SourceScope, signal?: AbortSignal): Promise<SourceSchema | QueryFailure> {
    const found = this.open(source, scope);
    if ('kind' in found) return found;
    if (signal?.aborted)
      return { source, kind: 'stopped', message: `Describing source "${source}" was stopped.`, ms: 0 };
    return found.describe();
  }

  async query(request: QueryRequest): Promise<QueryOutcome> {
    const found = this.open(request.source, request.scope);
    const outcome = 'kind' in found ? { ok: false as const, ...found } : await found.query(request.sql, request.signal);
    const log = this.options.logger?.child({ source: request.source });
    if (!outcome.ok && outcome.kind === 'unreachable')
      log?.warn({ kind: outcome.kind, ms: outcome.ms }, outcome.message);
    else if (outcome.ok)
      log?.debug({ rows: outcome.rows, bytes: outcome.bytes, ms: outcome.ms, cut: outcome.cut }, 'source query');
    else log?.debug({ kind: outcome.kind, ms: outcome.ms }, outcome.message);
    return outcome;
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.sources.values()];
    this.sources.clear();
    await Promise.all(open.map((s) => s.close().catch(() => undefined)));
  }

  /** The source's connection pool, or why `scope` may not use it (unknown and not allowed read alike, by name). */
  private open(name: string, scope: SourceScope): PostgresSource | QueryFailure {
    const settings = this.options.sources.find((s) => s.name === name);
    const fail = (kind: QueryFailure['kind'], message: string): QueryFailure => ({
      source: name,
      kind,
      message,
      ms: 0,
    });
    const names = this.list(scope).map((s) => `"${s.name}"`);
    const known = names.length > 0 ? `Sources you may use here: ${names.join(', ')}.` : 'No source is available here.';
    if (!settings) return fail('unknown_source', `There is no source named "${name.slice(0, 100)}". ${known}`);
    if (!sourceAllows(settings.allow, scope))
      return fail(
        'not_allowed',
        `Source "${name}" is not open to you here (its allow list in THREADLAB_SOURCES_FILE). ${known}`,
      );
    if (this.closed) return fail('unreachable', `Source "${name}" is closed: Threadlab is shutting down.`);
    let source = this.sources.get(name);
    if (!source) {
      source = new PostgresSource(settings, this.options.secrets);
      this.sources.set(name, source);
    }
    return source;
  }
}

function summaryOf(s: SourceSettings): SourceSummary {
  return { name: s.name, kind: s.kind, ...(s.description ? { description: s.description } : {}), limits: s.limits };
}
