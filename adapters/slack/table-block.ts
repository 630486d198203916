import type { ReplyFile, ReplyTable } from '../../src/domain/reply.js';
import { isCut, monospaceTable, tableCaption, tableCsvFile, type ShownPart } from '../../src/replies/table-text.js';
import { escapeMrkdwn } from './slack-text.js';
import type { SlackBlock } from './slack-block.js';

/**
 * Block Kit's table block (docs.slack.dev/reference/block-kit/blocks/table-block): at most 100 rows (the header
 * row counts) of at most 20 cells, `raw_text` or `rich_text` cells, `column_settings` (align, is_wrapped) for at
 * most 20 columns. The reference states no character cap, so cells and the whole table are kept modest here.
 */
export const SLACK_TABLE_LIMITS = { maxRows: 100, maxColumns: 20, maxCellChars: 300, maxTableChars: 10_000 } as const;
/** A section's text is at most 3,000 characters; escaping can grow the monospace form. */
const MONOSPACE_MAX_CHARS = 2_600;

/** One message for one table (a table block per message), plus its CSV when Slack shows only part of it. */
export interface SlackTableMessage {
  text: string;
  blocks: SlackBlock[];
  /** A CSV made from the rows when the table is whole but Slack shows only part of it. */
  file?: ReplyFile;
  /** The same table as monospace text, for a workspace that refuses table blocks. */
  fallback: { blocks: SlackBlock[]; file?: ReplyFile };
}

const cellText = (text: string) =>
  text.length > SLACK_TABLE_LIMITS.maxCellChars ? `${text.slice(0, SLACK_TABLE_LIMITS.maxCellChars - 1)}…` : text;

/** What of `table` fits one table block: rows and columns within Slack's limits and the character budget. */
function fitTableBlock(table: ReplyTable): ShownPart {
  const columns = Math.min(table.columns.length, SLACK_TABLE_LIMITS.maxColumns);
  const chars = (row: string[]) => row.slice(0, columns).reduce((n, c) => n + Math.max(1, cellText(c).length), 0);
  let used = chars(table.columns);
  let rows = 0;
  const maxRows = Math.min(table.rows.length, SLACK_TABLE_LIMITS.maxRows - 1);
  while (rows < maxRows && used + chars(table.rows[rows]!) <= SLACK_TABLE_LIMITS.maxTableChars) {
    used += chars(table.rows[rows]!);
    rows += 1;
  }
  return { rows, columns: columns === table.columns.length ? table.totalColumns : columns };
}

/** Slack refuses an empty raw_text cell: an empty value is shown as a blank. */
const cell = (text: string) => ({ type: 'raw_text', text: cellText(text) || ' ' });

/**
 * A DataFrame for Slack: a native table block with its first rows, and a caption saying what is left out and
 * which attached CSV holds every row (the sandbox's, or one made here when Slack cuts a whole table).
 */
export function tableMessage(table: ReplyTable): SlackTableMessage {
  const shown = fitTableBlock(table);
  const columns = Math.min(table.columns.length, SLACK_TABLE_LIMITS.maxColumns);
  const ownCsv = table.whole && isCut(table, shown) ? tableCsvFile(table) : undefined;
  const caption = tableCaption(table, shown, ownCsv?.name ?? table.csvName);
  const block: SlackBlock = {
    type: 'table',
    column_settings: table.numeric.slice(0, columns).map((n) => ({ align: n ? 'right' : 'left' })),
    rows: [table.columns, ...table.rows.slice(0, shown.rows)].map((r) => r.slice(0, columns).map(cell)),
  };
  const mono = monospaceTable(table, { maxChars: MONOSPACE_MAX_CHARS });
  const monoCsv = table.whole && isCut(table, mono.shown) ? tableCsvFile(table) : undefined;
  const monoCaption = tableCaption(table, mono.shown, monoCsv?.name ?? table.csvName);
  return {
    text: caption,
    blocks: [block, context(escapeMrkdwn(caption))],
    ...(ownCsv ? { file: ownCsv } : {}),
    fallback: {
      blocks: [
        {
          type: 'section',
          text: { type: 'mrkdwn', text: `\`\`\`\n${escapeMrkdwn(mono.text.replace(/```/g, 'ˋˋˋ'))}\n\`\`\`` },
        },
        context(escapeMrkdwn(monoCaption)),
      ],
      ...(monoCsv ? { file: monoCsv } : {}),
    },
  };
}

function context(text: string): SlackBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text }] };
}
