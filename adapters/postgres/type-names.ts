import type { PoolClient } from 'pg';

/** The built-in types' names by OID (pg_type.h), so most results need no catalogue look-up. */
const BUILT_IN: Record<number, string> = {
  16: 'boolean',
  17: 'bytea',
  18: 'char',
  19: 'name',
  20: 'bigint',
  21: 'smallint',
  23: 'integer',
  25: 'text',
  26: 'oid',
  114: 'json',
  700: 'real',
  701: 'double precision',
  1042: 'character',
  1043: 'character varying',
  1082: 'date',
  1083: 'time without time zone',
  1114: 'timestamp without time zone',
  1184: 'timestamp with time zone',
  1186: 'interval',
  1700: 'numeric',
  2950: 'uuid',
  3802: 'jsonb',
};

/** Names learned from the catalogue, per source; bounded (a type seen past the bound is looked up again). */
export class TypeNames {
  private readonly learned = new Map<number, string>();

  constructor(private readonly maxEntries = 1000) {}

  /** How many names are remembered (at most `maxEntries`). */
  get size(): number {
    return this.learned.size;
  }

  /** The names of `oids`, asking the server (format_type) only for those not known yet. */
  async names(client: PoolClient, oids: number[]): Promise<Map<number, string>> {
    const unknown = [...new Set(oids.filter((oid) => !BUILT_IN[oid] && !this.learned.has(oid)))];
    const found = new Map<number, string>();
    if (unknown.length > 0) {
      const { rows } = await client.query<{ oid: string; name: string }>(
        'SELECT oid::int AS oid, pg_catalog.format_type(oid, NULL) AS name FROM pg_catalog.pg_type WHERE oid = ANY($1::oid[])',
        [unknown],
      );
      for (const r of rows) {
        found.set(Number(r.oid), r.name);
        if (this.learned.size < this.maxEntries) this.learned.set(Number(r.oid), r.name);
      }
    }
    return new Map(oids.map((oid) => [oid, BUILT_IN[oid] ?? this.learned.get(oid) ?? found.get(oid) ?? 'unknown']));
  }
}
