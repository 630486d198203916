import { randomUUID } from 'node:crypto';
import type { ProgressEvent } from '../../src/domain/progress.js';
import type { Reply } from '../../src/domain/reply.js';
import type { WebThreadStore } from './thread-store.js';
import type { WebFile, WebImage, WebMessage } from './types.js';

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
  if (reply.footer) message.footer = reply.footer;
  return message;
}

/** A ProgressEvent as JSON for the page: the final Reply (with its buffers) travels as a `reply` event instead. */
export function serializeProgress(event: ProgressEvent): unknown {
  if (event.type === 'final') return { type: 'final', kind: event.reply.kind };
  return event;
}
