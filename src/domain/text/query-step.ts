import type { QueryStepOutcome } from '../progress-event.js';
import { formatBytes, formatDuration } from './format.js';

/**
 * One line for a finished data source query, as every surface's live status shows it: rows, size and time and the
 * DataFrame it became, or the failure's plain words (which name the source, never a connection detail).
 */
export function queryStepLine(source: string, outcome: QueryStepOutcome): string {
  if (!outcome.ok) return `✖️ Query on ${source} (${formatDuration(outcome.ms)}): ${outcome.message}`;
  const cut = outcome.cut ? `, cut at the ${outcome.cut === 'rows' ? 'row' : 'byte'} cap` : '';
  const rows = `${outcome.rows.toLocaleString('en-US')} row${outcome.rows === 1 ? '' : 's'}`;
  return `✔️ Query on ${source}: ${rows} (${formatBytes(outcome.bytes)}${cut}) in ${formatDuration(outcome.ms)} → \`${outcome.name}\``;
}
