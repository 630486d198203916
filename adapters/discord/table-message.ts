import type { ReplyTable } from '../../src/domain/reply.js';
import { codeBlock } from '../../src/replies/run-output.js';
import { isCut, monospaceTable, tableCaption, tableCsvFile, tableCsvName } from '../../src/replies/table-text.js';
import { DISCORD_MESSAGE_CHARS } from './profile.js';
import type { OutgoingMessage } from './target.js';

/**
 * A DataFrame for Discord, which draws no tables: its first rows as aligned monospace in one message of at most
 * 2,000 characters, with a caption saying what is left out. A whole table that does not fit comes with a CSV
 * made from its rows; a table the sandbox cut points to the sandbox's CSV, attached with the reply's files.
 */
export function tableMessage(table: ReplyTable): OutgoingMessage {
  const maxChars = DISCORD_MESSAGE_CHARS;
  // The caption is at most a few hundred characters; the fence and its newlines take a dozen more.
  const draftCaption = tableCaption(table, { rows: 0, columns: 0 }, table.csvName ?? tableCsvName(table));
  const mono = monospaceTable(table, { maxChars: maxChars - draftCaption.length - 20 });
  const ownCsv = table.whole && isCut(table, mono.shown) ? tableCsvFile(table) : undefined;
  const caption = tableCaption(table, mono.shown, ownCsv?.name ?? table.csvName);
  const content = `${codeBlock(mono.text, '')}\n${caption}`;
  return { content, files: ownCsv ? [ownCsv] : [] };
}
