import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebThreadStore } from '../../../adapters/web/thread-store.js';
import type { WebMessage } from '../../../adapters/web/types.js';

describe('WebThreadStore revisions (edited messages, re-run answers)', () => {
  let root: string;
  let store: WebThreadStore;
  let threadId: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'threadlab-web-revisions-'));
    store = new WebThreadStore(root);
    await store.init();
    threadId = (await store.createThread()).id;
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const message = (id: string, text: string, extra: Partial<WebMessage> = {}): WebMessage => ({
    id,
    threadId,
    role: 'bot',
    createdAtMs: Date.now(),
    text,
    ...extra,
  });

  it('a revision replaces its message where it stands, in the history, a page and a lookup', async () => {
    for (const id of ['m1', 'm2', 'm3']) await store.appendMessage(message(id, `${id} v1`));
    await store.appendMessage(message('m2', 'm2 v2', { revisedAtMs: Date.now() }));
    await store.appendMessage(message('m1', 'm1 v2', { revisedAtMs: Date.now() }));
    expect((await store.messages(threadId)).map((m) => m.text)).toEqual(['m1 v2', 'm2 v2', 'm3 v1']);
    expect((await store.findMessage(threadId, 'm2'))?.text).toBe('m2 v2');
    // A page of the two latest: m1's revision belongs to a message before the window and is not shown.
    const page = await store.page(threadId, { limit: 2 });
    expect(page?.messages.map((m) => m.text)).toEqual(['m2 v2', 'm3 v1']);
    expect(page?.hasMore).toBe(true);
    expect((await store.page(threadId, { limit: 5, before: 'm3' }))?.messages.map((m) => m.text)).toEqual([
      'm1 v2',
      'm2 v2',
    ]);
  });

  it('deleting the thread removes the blobs of replaced versions too', async () => {
    const old = await store.putBlob(threadId, { name: 'a.png', mime: 'image/png', data: Buffer.from('old') });
    const current = await store.putBlob(threadId, { name: 'a.png', mime: 'image/png', data: Buffer.from('new') });
    const image = (id: string) => ({ id, name: 'a.png', mime: 'image/png', alt: '', bytes: 3, url: '' });
    await store.appendMessage(message('m1', 'v1', { images: [image(old.id)] }));
    await store.appendMessage(message('m1', 'v2', { images: [image(current.id)], revisedAtMs: Date.now() }));
    await store.deleteThread(threadId);
    expect(await store.blobSize(old.id)).toBeUndefined();
    expect(await store.blobSize(current.id)).toBeUndefined();
  });
});
