import { randomUUID } from 'node:crypto';
import type { ProgressEvent } from '../../src/domain/progress.js';
import type { Reply } from '../../src/domain/reply.js';
import type { WebThreadStore } from './thread-store.js';
import { tableCaption } from '../../src/replies/table-text.js';
import type { WebFile, WebImage, WebMessage, WebTable } from './types.js';

/** The URL a stored blob is served at. */
export function blobUrl(id: string): string {
  return `/api/files/${id}`;
}

/** Writes a Reply's images and files to disk and returns the bot message that references them. */
export async function storeReply(store: WebThreadStore, threadId: string, reply: Reply): Promise<WebMessage> {
  const images: WebImage[] = [];
  for (const image of reply.images) {
    const meta = await store.putBlob(threadId, { name: image.name, mime: image.mime, data: image.data });
    images.push({
      id: meta.id,
      name: image.name,
      mime: image.mime,
      alt: image.alt,
      bytes: meta.bytes,
      url: blobUrl(meta.id),
      ...(image.width !== undefined ? { width: image.width } : {}),
      ...(image.height !== undefined ? { height: image.height } : {}),
    });
  }
  const files: WebFile[] = [];
  for (const file of reply.files) {
    const meta = await store.putBlob(threadId, { name: file.name, mime: file.mime, data: file.data });
    files.push({
      id: meta.id,
      name: file.name,
      mime: file.mime,
      bytes: meta.bytes,
      url: blobUrl(meta.id),
      ...(file.description !== undefined ? { description: file.description } : {}),
    });
  }
  const message: WebMessage = {
    id: randomUUID(),
    threadId,
    role: 'bot',
    createdAtMs: Date.now(),
    text: reply.text,
    kind: reply.kind,
    runs: reply.runs,
    images,
    files,
  };
  if (reply.omitted?.length) message.omitted = reply.omitted;
  if (reply.tables?.length) message.tables = reply.tables.map((t) => webTable(t, files));
  if (reply.footer) message.footer = reply.footer;
  // An answer that states no figure has an empty line: the page then shows nothing about figures.
  if (reply.figures?.line) message.figures = reply.figures;
  if (reply.thinking) message.thinking = reply.thinking;
  return message;
}

/** The page shows every row the sandbox sent (at most 100, scrollable); the caption says what is left out. */
function webTable(table: NonNullable<Reply['tables']>[number], files: WebFile[]): WebTable {
  const csv = table.csvName ? files.find((f) => f.name === table.csvName) : undefined;
  return {
    columns: table.columns,
    numeric: table.numeric,
    rows: table.rows,
    totalRows: table.totalRows,
    totalColumns: table.totalColumns,
    // The page shows the caption as text: file names lose their Markdown backticks.
    caption: tableCaption(table, { rows: table.rows.length, columns: table.columns.length }).replace(
      /`([^`]*)`/g,
      '$1',
    ),
    ...(csv ? { csv: { name: csv.name, url: csv.url } } : {}),
  };
}

/** A ProgressEvent as JSON for the page: the final Reply (with its buffers) travels as a `reply` event instead. */
export function serializeProgress(event: ProgressEvent): unknown {
  if (event.type === 'final') return { type: 'final', kind: event.reply.kind };
  return event;
}
