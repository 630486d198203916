/**
 * The sql fence: how a query is written where there are no tools (the text protocol, and a message sent to run as
 * is). The grammar, documented in docs/data-sources.md:
 *
 * ```sql
 * -- source: sales
 * -- name: revenue_by_region        (optional: the DataFrame's name)
 * SELECT region, sum(amount) FROM sales GROUP BY region
 * ```
 *
 * Variants read the same: `--source=sales`, `-- source sales`, a first line `sales:` or `-- sales` naming a known
 * source, and the source on the fence line (```` ```sql sales ```` or ```` ```sql source=sales ````). With one source
 * configured, a fence naming none is for that one.
 */

/** A fence read: the source it names (if any), the DataFrame name it asks for, and the SQL without those lines. */
export interface SqlFence {
  source?: string;
  name?: string;
  sql: string;
}

const NAME = '([A-Za-z0-9_][A-Za-z0-9_.-]{0,62})';
const SOURCE_LINE = new RegExp(`^--\\s*source\\s*(?:[:=]\\s*|\\s+)${NAME}\\s*;?\\s*$`, 'i');
const NAME_LINE = /^--\s*(?:name|as|dataframe)\s*[:=]?\s*([A-Za-z_][A-Za-z0-9_]{0,39})\s*$/i;
const BARE_LINE = new RegExp(`^(?:--\\s*)?${NAME}\\s*:?\\s*$`);
const INFO = new RegExp(`^(?:source\\s*[:=]\\s*)?${NAME}$`, 'i');

/** Whether a fence's tag is SQL's. */
export const isSqlTag = (tag: string): boolean => /^(sql|postgres|postgresql|psql|pgsql)$/i.test(tag);

/**
 * Reads an sql fence's body (and what follows the tag on its fence line, `info`). Leading comment lines that name the
 * source or the DataFrame are taken out of the SQL; `sourceNames` lets a bare first line (`sales:`) name a source.
 */
export function readSqlFence(body: string, sourceNames: readonly string[], info = ''): SqlFence {
  const lines = body.split('\n');
  const known = new Set(sourceNames.map((s) => s.toLowerCase()));
  let source = INFO.exec(info.trim())?.[1];
  let name: string | undefined;
  while (lines.length > 0) {
    const line = lines[0]!.trim();
    if (line === '') {
      lines.shift();
      continue;
    }
    const named = SOURCE_LINE.exec(line)?.[1];
    const bare = BARE_LINE.exec(line)?.[1];
    const frame = NAME_LINE.exec(line)?.[1];
    if (!source && named) source = named;
    else if (!source && bare && known.has(bare.toLowerCase()) && (line.startsWith('--') || line.endsWith(':')))
      source = bare;
    else if (!name && frame) name = frame;
    else break;
    lines.shift();
  }
  const matched = source ? sourceNames.find((s) => s.toLowerCase() === source!.toLowerCase()) : undefined;
  const chosen = matched ?? source ?? (sourceNames.length === 1 ? sourceNames[0] : undefined);
  return { ...(chosen ? { source: chosen } : {}), ...(name ? { name } : {}), sql: lines.join('\n').trim() };
}
