import type { SourceSummary } from '../../ports/data-sources.js';
import { cutHeadTail } from '../text-cut.js';
import { limitsText } from './list-sources.js';

/** Longest data sources section of the system prompt, in characters. */
const MAX_PROMPT_CHARS = 2_000;
/** Most sources named in it; list_sources lists them all. */
const MAX_PROMPT_SOURCES = 12;

/**
 * The system prompt's data sources section: each source the turn may use, by name and description, and how to query
 * it. Names and descriptions only: a source's connection never reaches the model.
 */
export function sourcesPrompt(sources: readonly SourceSummary[]): string {
  if (sources.length === 0) return '';
  const shown = sources.slice(0, MAX_PROMPT_SOURCES);
  const lines = shown.map((s) => `- ${s.name}${s.description ? `: ${s.description}` : ''} (${limitsText(s)})`);
  if (sources.length > shown.length) lines.push(`- and ${sources.length - shown.length} more (list_sources)`);
  const text = [
    'Data sources (read-only SQL databases) this thread may query:',
    ...lines,
    'Query them with the query_source tool (or, where there are no tools, an sql block as described below), never from code (the sandbox has no network and no credentials); list_sources shows their tables and columns. Each result is saved as a CSV in /mnt/data and loaded in the Python session as a pandas DataFrame, named in the result; then analyse and plot it with code. Aggregate in SQL when a table is large.',
  ].join('\n');
  return cutHeadTail(text, { maxChars: MAX_PROMPT_CHARS, headShare: 0.5 }).text;
}
