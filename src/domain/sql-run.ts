/**
 * Whether code sent to run as is (a message that is one block, a platform's run command, its modal) is an SQL query
 * for a data source rather than a program: the one place that decides, so every surface routes the same code to the
 * same `query` intent (docs/data-sources.md, "Direct mode"). Pure; knows no platform.
 */

/** An sql block's body and what followed its tag on the fence line (`sales` in ```` ```sql sales ````). */
export interface SqlRun {
  body: string;
  info: string;
}

const SQL_TAG = '(?:sql|postgres|postgresql|psql|pgsql)';
/** The whole text is one sql fence (several lines). */
const WHOLE_SQL_BLOCK = new RegExp(
  `^\\s*\`\`\`[ \\t]*${SQL_TAG}\\b([^\\n\`]*)\\r?\\n([\\s\\S]*?)\\r?\\n[ \\t]*\`\`\`[ \\t]*\\s*$`,
  'i',
);
/** ```sql SELECT 1``` on one line, as a one-line command option arrives. */
const ONE_LINE_SQL = new RegExp(`^\\s*\`\`\`${SQL_TAG}[ \\t]+([^\\n\`]+?)\`\`\`\\s*$`, 'i');
/** Bare code whose first line names its source (`-- source: sales`, `--source=sales`, `-- source sales`). */
const SOURCE_FIRST_LINE = /^\s*--\s*source\s*(?:[:=]\s*|\s+)[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}\s*;?\s*(?:\r?\n|$)/i;

/** Whether a language label (a fence's tag, a command's language option) is SQL's. */
export const isSqlLabel = (label: string | undefined): boolean => new RegExp(`^${SQL_TAG}$`, 'i').test(label ?? '');

/** A text that is only one sql fence (```sql, its source on the first line or the fence line); else undefined. */
export function sqlBlockOf(text: string): SqlRun | undefined {
  const match = WHOLE_SQL_BLOCK.exec(text);
  if (!match || match[2]!.trim() === '' || /^[ \t]*```/m.test(match[2]!)) return undefined;
  return { body: match[2]!, info: match[1]!.trim() };
}

/**
 * The query a run command's code is, or undefined when it is a program: one sql fence (several lines, or one line as a
 * command option sends it), bare code whose first line is `-- source: NAME`, or any code when the command's language
 * option says SQL (`languageLabel`). Code that is only a source line and nothing else is no query.
 */
export function sqlRunOf(code: string, languageLabel?: string): SqlRun | undefined {
  const block = sqlBlockOf(code);
  if (block) return block;
  const oneLine = ONE_LINE_SQL.exec(code);
  if (oneLine) return { body: oneLine[1]!.trim(), info: '' };
  const bare = code.replace(SOURCE_FIRST_LINE, '').trim();
  if (bare === '') return undefined;
  if (isSqlLabel(languageLabel) || SOURCE_FIRST_LINE.test(code)) return { body: code.trim(), info: '' };
  return undefined;
}
