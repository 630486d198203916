export interface SeedOptions {
  /** Rows of `sales` (region, day, amount), generated. @defaultValue 1000000 */
  salesRows?: number;
}

interface SeedRoles extends SeedOptions {
  reader: { user: string; password: string };
  writer: { user: string; password: string };
}

/** A role name or password quoted as an SQL literal (the passwords are base64url: no quotes to escape). */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * The private server's data and roles: `tl_owner` (NOLOGIN) owns `sales` (1,000,000 generated rows by default, unlogged and without an index to load fast,
 * six regions over 2024), `regions`, `notes` (text with commas, quotes, newlines and NULLs, for CSV) and a sequence;
 * `tl_reader` may only read (pg_read_all_data, PostgreSQL 14+; no TEMP, read-only by default: docs/data-sources.md's role); `tl_writer` may write every table and create
 * in the schema, and is a member of `tl_owner` (so SET ROLE tl_owner is open to it): a source misconfigured with
 * read-write credentials.
 */
export function SEED_SQL({ reader, writer, salesRows = 1_000_000 }: SeedRoles): string {
  const rows = Math.max(1, Math.floor(salesRows));
  return `
CREATE ROLE tl_owner NOLOGIN;
CREATE ROLE ${reader.user} LOGIN PASSWORD ${literal(reader.password)};
CREATE ROLE ${writer.user} LOGIN PASSWORD ${literal(writer.password)} IN ROLE tl_owner;
GRANT pg_read_all_data TO ${reader.user};
ALTER ROLE ${reader.user} SET default_transaction_read_only = on;
REVOKE TEMP ON DATABASE postgres FROM PUBLIC;
GRANT CREATE, TEMP ON DATABASE postgres TO ${writer.user};
GRANT CREATE ON SCHEMA public TO tl_owner;
SET ROLE tl_owner;
CREATE TABLE regions (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO regions VALUES (0, 'north'), (1, 'south'), (2, 'east'), (3, 'west'), (4, 'central'), (5, 'online');
CREATE UNLOGGED TABLE sales (id bigint NOT NULL, region text NOT NULL, day date NOT NULL, amount numeric(12,2) NOT NULL);
INSERT INTO sales
  SELECT i, (ARRAY['north','south','east','west','central','online'])[1 + i % 6],
         date '2024-01-01' + (i % 366), round(((i::bigint * 7919) % 100000) / 100.0, 2)
  FROM generate_series(1, ${rows}) AS i;
CREATE TABLE notes (id int PRIMARY KEY, body text);
INSERT INTO notes VALUES (1, 'plain'), (2, 'a, comma'), (3, 'a "quote"'), (4, E'two\\nlines'), (5, NULL), (6, '');
CREATE SEQUENCE invoice_numbers;
RESET ROLE;
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA public TO ${writer.user};
GRANT USAGE, UPDATE ON SEQUENCE invoice_numbers TO ${writer.user};
ANALYZE;
`;
}
