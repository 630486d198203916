import type pg from 'pg';
import type { SourceSettings } from '../../src/config/sources.js';
import type { QueryFailure, QueryOutcome, SourceSchema } from '../../src/ports/data-sources.js';
import { describeTables } from './describe.js';
import { failureOf } from './failures.js';
import { connectionConfig, createPool } from './pool.js';
import { runQuery } from './run-query.js';
import { beginSql, ROLLBACK } from './transaction.js';
import { TypeNames } from './type-names.js';

/** Queries one source may have waiting for a connection beyond those running; more are told it is busy. */
export const MAX_WAITING_PER_CONNECTION = 4;

/** One configured PostgreSQL source: its bounded pool, and a query or description at a time per connection. */
export class PostgresSource {
  private readonly pool: pg.Pool;
  private readonly types = new TypeNames();
  private versionNum: number | undefined;

  constructor(
    readonly settings: SourceSettings,
    private readonly secrets: readonly string[],
  ) {
    this.pool = createPool(settings);
  }

  async query(sql: string, signal?: AbortSignal): Promise<QueryOutcome> {
    const startedMs = Date.now();
    const got = await this.connect(startedMs);
    if ('kind' in got) return { ok: false, ...got };
    const { client, version } = got;
    const { outcome, destroy } = await runQuery({
      source: this.settings.name,
      sql,
      client,
      connection: connectionConfig(this.settings),
      limits: this.settings.limits,
      serverVersionNum: version,
      types: this.types,
      secrets: this.secrets,
      ...(signal ? { signal } : {}),
      startedMs,
    });
    client.release(destroy);
    return outcome;
  }

  async describe(): Promise<SourceSchema | QueryFailure> {
    const startedMs = Date.now();
    const got = await this.connect(startedMs);
    if ('kind' in got) return got;
    const { client, version } = got;
    let destroy = false;
    try {
      await client.query(beginSql(this.settings.limits, version));
      const { tables, truncated } = await describeTables(client);
      const { name, kind, description, limits } = this.settings;
      return { name, kind, ...(description ? { description } : {}), limits, tables, truncated };
    } catch (err) {
      return this.failure(err, startedMs);
    } finally {
      destroy = !(await client.query(ROLLBACK).then(
        () => true,
        () => false,
      ));
      client.release(destroy);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  /** A pooled connection, within the bounded wait; or the failure to say. */
  private async connect(startedMs: number): Promise<{ client: pg.PoolClient; version: number } | QueryFailure> {
    if (this.pool.waitingCount >= MAX_WAITING_PER_CONNECTION * this.settings.maxConnections)
      return {
        source: this.settings.name,
        kind: 'unreachable',
        ms: 0,
        message: `Source "${this.settings.name}" is busy: ${this.pool.waitingCount} queries are already waiting for a connection. Try again shortly, or ask an admin to raise maxConnections in THREADLAB_SOURCES_FILE.`,
      };
    let client: pg.PoolClient | undefined;
    try {
      client = await this.pool.connect();
      this.versionNum ??= Number(
        (await client.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version_num'])).rows[0]?.v,
      );
      return { client, version: this.versionNum };
    } catch (err) {
      client?.release(true);
      return this.failure(err, startedMs);
    }
  }

  private failure(err: unknown, startedMs: number): QueryFailure {
    return failureOf(err, {
      source: this.settings.name,
      statementTimeoutMs: this.settings.limits.statementTimeoutMs,
      ms: Date.now() - startedMs,
      secrets: this.secrets,
    });
  }
}
