import type { DataSources, SourceScope, SourceSummary } from '../../ports/data-sources.js';
import { formatBytes, formatDuration } from '../../domain/text/format.js';
import { cutHeadTail } from '../text-cut.js';

/** Longest list_sources result, in characters (tables and columns of every source together). */
export const MAX_LIST_CHARS = 8_000;
/** Columns named per table at most; the rest are counted. */
const MAX_COLUMNS_LISTED = 40;

/** One line of a source's limits, as the model and the system prompt say them. */
export function limitsText(s: SourceSummary): string {
  const { statementTimeoutMs, maxRows, maxBytes } = s.limits;
  return `at most ${maxRows.toLocaleString('en-US')} rows or ${formatBytes(maxBytes)} per query, ${formatDuration(statementTimeoutMs)} per statement`;
}

/**
 * The list_sources tool's result: each source the scope may use, its description and limits, then its tables with
 * columns and types (described by the port, bounded there and here). A source that cannot be described says why.
 */
export async function listSourcesText(sources: DataSources, scope: SourceScope, signal?: AbortSignal): Promise<string> {
  const listed = sources.list(scope);
  if (listed.length === 0) return 'No data source is available to this thread.';
  const parts: string[] = [];
  for (const summary of listed) {
    const about = summary.description ? `: ${summary.description}` : '';
    const lines = [`Source "${summary.name}" (${summary.kind})${about}. Limits: ${limitsText(summary)}.`];
    const schema = await sources.describe(summary.name, scope, signal);
    if ('tables' in schema) {
      for (const table of schema.tables) {
        const estimate =
          table.estimatedRows === undefined ? '' : ` (~${table.estimatedRows.toLocaleString('en-US')} rows)`;
        const columns = table.columns.slice(0, MAX_COLUMNS_LISTED).map((c) => `${c.name} ${c.type}`);
        const more = table.columns.length - columns.length;
        lines.push(`- ${table.name}${estimate}: ${columns.join(', ')}${more > 0 ? `, and ${more} more columns` : ''}`);
      }
      if (schema.tables.length === 0) lines.push("- (no tables visible to this source's role)");
      if (schema.truncated) lines.push('- (more tables not listed)');
    } else lines.push(`- Tables could not be listed: ${schema.message}`);
    parts.push(lines.join('\n'));
  }
  return cutHeadTail(parts.join('\n\n'), { maxChars: MAX_LIST_CHARS, headShare: 0.9 }).text;
}
