import { randomUUID } from 'node:crypto';
import type { ProgressEvent } from '../../src/domain/progress-event.js';
import type { Reply, ReplyFileLink } from '../../src/domain/reply.js';
import type { AnswerFigures } from '../../src/domain/figures.js';
import type { WebThreadStore } from './thread-store.js';
import { tableCaption } from '../../src/replies/table-text.js';
import { escapeLinkText, renderFileLinks } from '../../src/replies/file-link-text.js';
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
  const linked = linkFiles(reply, { images, files });
  const message: WebMessage = {
    id: randomUUID(),
    threadId,
    role: 'bot',
    createdAtMs: Date.now(),
    text: linked.text,
    kind: reply.kind,
    runs: reply.runs,
    images,
    files,
  };
  if (reply.omitted?.length) message.omitted = reply.omitted;
  if (reply.tables?.length) message.tables = reply.tables.map((t) => webTable(t, files));
  if (reply.footer) message.footer = reply.footer;
  if (reply.feedback) message.feedback = true;
  // An answer that states no figure has an empty line: the page then shows nothing about figures.
  if (reply.figures?.line) message.figures = linked.figures ?? reply.figures;
  if (reply.thinking) message.thinking = reply.thinking;
  return message;
}

/**
 * The answer's links to its files as the page shows them: a linked image inline where the model put it (and
 * marked `inline`, so the page does not show it again under the text), a linked file as a link to its download.
 * Links to files that were not delivered keep their words. Figure marks move with the text.
 */
export function linkFiles(
  reply: Pick<Reply, 'text' | 'fileLinks' | 'figures'>,
  stored: { images: WebImage[]; files: WebFile[] },
): { text: string; figures?: AnswerFigures } {
  const edited = renderFileLinks(reply.text, reply.fileLinks, (link) => webLink(link, stored));
  if (!reply.figures || edited.text === reply.text) return { text: edited.text };
  const marks = reply.figures.marks.map((m) => {
    const start = edited.shift(m.start);
    return { ...m, start, end: start + m.text.length };
  });
  return { text: edited.text, figures: { ...reply.figures, marks } };
}

function webLink(link: ReplyFileLink, stored: { images: WebImage[]; files: WebFile[] }): string | undefined {
  const { delivered } = link;
  if (delivered?.kind === 'image') {
    const image = stored.images.find((i) => i.name === delivered.name);
    if (!image) return undefined;
    image.inline = true;
    return `![${escapeLinkText(link.label || image.alt || image.name)}](${image.url})`;
  }
  if (delivered?.kind === 'file') {
    const file = stored.files.find((f) => f.name === delivered.name);
    if (!file) return undefined;
    const label = link.label && link.label !== file.name ? `${link.label} (${file.name})` : file.name;
    return `[${escapeLinkText(label)}](${file.url}?download=1)`;
  }
  return undefined;
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
