import type {
  DataSources,
  QueryFailure,
  QueryOutcome,
  QueryRequest,
  SourceColumn,
  SourceSchema,
  SourceScope,
  SourceSummary,
  SourceTable,
} from '../../src/ports/data-sources.js';

/** One source of the fake: what it lists, who may use it, and how it answers each query. */
export interface FakeSource {
  summary: SourceSummary;
  tables: SourceTable[];
  /** Users allowed (all when unset). */
  users?: string[];
  /** The answer to a query, as a server would give it: rows and their columns, or a failure. */
  answer: (sql: string) => { columns: SourceColumn[]; rows: string[][]; cut?: 'rows' | 'bytes' } | QueryFailure;
}

const WRITE = /^\s*(insert|update|delete|create|drop|alter|truncate|copy|set|grant|begin|commit)\b/i;

const csvField = (v: string): string => (/[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/**
 * A fake of a read-only SQL server behind the DataSources port, for unit tests: named sources with canned answers per
 * query, access by user, and the refusals a read-only transaction gives (a write is `refused`). Records every query.
 */
export class MemoryDataSources implements DataSources {
  readonly queries: QueryRequest[] = [];
  closed = false;

  constructor(private readonly sources: FakeSource[]) {}

  list(scope: SourceScope): SourceSummary[] {
    return this.sources.filter((s) => !s.users || s.users.includes(scope.user)).map((s) => s.summary);
  }

  async describe(source: string, scope: SourceScope): Promise<SourceSchema | QueryFailure> {
    const found = this.find(source, scope);
    if ('kind' in found) return found;
    return { ...found.summary, tables: found.tables, truncated: false };
  }

  async query(request: QueryRequest): Promise<QueryOutcome> {
    this.queries.push(request);
    const found = this.find(request.source, request.scope);
    if ('kind' in found) return { ok: false, ...found };
    if (WRITE.test(request.sql))
      return {
        ok: false,
        source: request.source,
        kind: 'refused',
        message: `The query on "${request.source}" was refused: only reading is allowed (cannot execute in a read-only transaction).`,
        ms: 2,
      };
    const answer = found.answer(request.sql);
    if ('kind' in answer) return { ok: false, ...answer };
    const lines = [
      answer.columns.map((c) => csvField(c.name)).join(','),
      ...answer.rows.map((r) => r.map(csvField).join(',')),
    ];
    const csv = Buffer.from(`${lines.join('\r\n')}\r\n`);
    return {
      ok: true,
      source: request.source,
      columns: answer.columns,
      csv,
      rows: answer.rows.length,
      bytes: csv.length,
      ms: 7,
      ...(answer.cut ? { cut: answer.cut } : {}),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private find(source: string, scope: SourceScope): FakeSource | QueryFailure {
    const found = this.sources.find((s) => s.summary.name === source);
    if (!found) return { source, kind: 'unknown_source', message: `There is no data source named "${source}".`, ms: 0 };
    if (found.users && !found.users.includes(scope.user))
      return { source, kind: 'not_allowed', message: `You may not use the data source "${source}" here.`, ms: 0 };
    return found;
  }
}

/** A `sales` source: revenue by region for any query naming `region`, nothing for others. */
export function salesSource(overrides: Partial<FakeSource> = {}): FakeSource {
  return {
    summary: {
      name: 'sales',
      kind: 'postgres',
      description: 'Orders and revenue, 2024',
      limits: { statementTimeoutMs: 30_000, maxRows: 100_000, maxBytes: 100 * 1024 * 1024 },
    },
    tables: [
      {
        name: 'orders',
        columns: [
          { name: 'region', type: 'text' },
          { name: 'day', type: 'date' },
          { name: 'amount', type: 'numeric' },
        ],
        estimatedRows: 1000,
      },
    ],
    answer: () => ({
      columns: [
        { name: 'region', type: 'text' },
        { name: 'revenue', type: 'numeric' },
      ],
      rows: [
        ['north', '1200.50'],
        ['south', '980.25'],
      ],
    }),
    ...overrides,
  };
}
