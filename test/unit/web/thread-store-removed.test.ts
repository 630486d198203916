import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { WebHistoryRetention } from '../../../adapters/web/web-retention.js';
import { WebThreadStore } from '../../../adapters/web/thread-store.js';

let root: string;
beforeEach(async () => (root = await mkdtemp(join(tmpdir(), 'threadlab-web-removed-'))));
afterEach(() => rm(root, { recursive: true, force: true }));

it('a thread removed from disk by purge or the retention sweep is gone from the running store, not half-there', async () => {
  const store = new WebThreadStore(root);
  await store.init();
  const [gone, kept] = [await store.createThread('old'), await store.createThread('new')];
  const message = (threadId: string) => ({
    id: `m-${threadId}`,
    threadId,
    role: 'user' as const,
    createdAtMs: 1,
    text: 'hi',
  });
  await store.appendMessage(message(gone.id));

  // What the sweep does in the same process: remove the thread's directory without the store.
  await new WebHistoryRetention(root).purgeThread(`web:local:web:${gone.id}`);

  expect(store.getThread(gone.id)).toBeUndefined();
  expect(store.listThreads().map((t) => t.id)).toEqual([kept.id]);
  expect(await store.appendMessage(message(gone.id))).toBe(false);
  expect(await store.appendMessage(message(kept.id))).toBe(true);
});
