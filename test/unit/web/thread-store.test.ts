import { appendFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSafeId, titleOf, WebThreadStore } from '../../../adapters/web/thread-store.js';

describe('WebThreadStore', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'threadlab-web-store-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('keeps threads, messages and blobs across instances', async () => {
    const store = new WebThreadStore(root);
    await store.init();
    const thread = await store.createThread();
    const blob = await store.putBlob(thread.id, { name: 'a.csv', mime: 'text/csv', data: Buffer.from('x,y\n') });
    await store.appendMessage({
      id: 'm1',
      threadId: thread.id,
      role: 'user',
      createdAtMs: Date.now(),
      text: 'plot  the\nsales',
      attachments: [{ ...blob, url: '' }],
    });

    const reopened = new WebThreadStore(root);
    await reopened.init();
    expect(reopened.getThread(thread.id)?.title).toBe('plot the sales');
    expect((await reopened.messages(thread.id)).map((m) => m.id)).toEqual(['m1']);
    expect(await reopened.blobMeta(blob.id)).toMatchObject({ name: 'a.csv', bytes: 4, threadId: thread.id });
    expect(await reopened.blobSize(blob.id)).toBe(4);
  });

  it('deletes a thread with the blobs its messages reference', async () => {
    const store = new WebThreadStore(root);
    await store.init();
    const keep = await store.createThread('keep');
    const drop = await store.createThread('drop');
    const kept = await store.putBlob(keep.id, { name: 'k', mime: 'text/plain', data: Buffer.from('k') });
    const gone = await store.putBlob(drop.id, { name: 'g', mime: 'text/plain', data: Buffer.from('g') });
    await store.appendMessage({
      id: 'b',
      threadId: drop.id,
      role: 'bot',
      createdAtMs: 1,
      text: '',
      files: [{ ...gone, url: '' }],
    });
    expect(await store.deleteThread(drop.id)).toBe(true);
    expect(store.listThreads().map((t) => t.title)).toEqual(['keep']);
    expect(await store.blobMeta(gone.id)).toBeUndefined();
    expect(await store.blobMeta(kept.id)).toBeDefined();
    expect(await readdir(join(root, 'threads'))).toEqual([keep.id]);
    expect(await store.appendMessage({ id: 'x', threadId: drop.id, role: 'bot', createdAtMs: 1, text: '' })).toBe(
      false,
    );
  });

  it('titles a thread from its first message without code fences, or from its files', () => {
    const base = { id: 'm', threadId: 't', role: 'user' as const, createdAtMs: 0 };
    expect(titleOf({ ...base, text: '```python\nimport pandas as pd\n```' })).toBe('import pandas as pd');
    expect(
      titleOf({ ...base, text: ' ', attachments: [{ id: 'a', name: 'a.csv', mime: '', bytes: 1, url: '' }] }),
    ).toBe('a.csv');
  });

  it('accepts only path-safe ids', () => {
    expect(isSafeId('0b6c2c1e-aaaa-4bbb-8ccc-123456789abc')).toBe(true);
    expect(isSafeId('../etc')).toBe(false);
    expect(isSafeId('')).toBe(false);
    expect(() => new WebThreadStore(root).blobPath('../x')).toThrow();
  });

  it('reads a history whose last line is still being written, and never interleaves appends', async () => {
    const store = new WebThreadStore(root);
    await store.init();
    const thread = await store.createThread('t');
    const message = (id: string) => ({
      id,
      threadId: thread.id,
      role: 'user' as const,
      createdAtMs: 1,
      text: 'x'.repeat(200_000),
    });
    await store.appendMessage(message('whole'));
    // a reader that overlaps an append sees the start of the new line only
    await appendFile(join(root, 'threads', thread.id, 'messages.jsonl'), '{"id":"half","threadId"');
    expect((await store.messages(thread.id)).map((m) => m.id)).toEqual(['whole']);
    await writeFile(join(root, 'threads', thread.id, 'messages.jsonl'), '');
    await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => store.appendMessage(message(id))));
    const reads = await Promise.all([1, 2, 3].map(() => store.messages(thread.id)));
    expect(reads.every((r) => r.length <= 6)).toBe(true);
    expect((await store.messages(thread.id)).map((m) => m.id).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('adopts a streamed upload by moving it, and removes what a crash left in its temporary directory', async () => {
    const store = new WebThreadStore(root);
    await store.init();
    const thread = await store.createThread('t');
    await writeFile(join(store.tmpDir, 'left-over.upload'), 'half');
    await writeFile(join(store.tmpDir, 'u.upload'), 'a,b\n');
    const meta = await store.adoptBlob(thread.id, {
      name: 'u.csv',
      mime: 'text/csv',
      path: join(store.tmpDir, 'u.upload'),
      bytes: 4,
    });
    expect(await readFile(store.blobPath(meta.id), 'utf8')).toBe('a,b\n');
    await new WebThreadStore(root).init();
    expect(await readdir(store.tmpDir)).toEqual([]);
  });
});
