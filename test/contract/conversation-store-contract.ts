import { afterEach, describe, expect, it } from 'vitest';
import type { ExportEntry, ConversationRecord, ConversationStore } from '../../src/ports/conversation-store.js';

export interface StoreUnderTest {
  store: ConversationStore;
  /** Closes the store and removes what it stored. */
  dispose(): Promise<void>;
}

export type ConversationStoreFactory = () => Promise<StoreUnderTest>;

const record = (text: string): ConversationRecord => ({
  history: [
    { role: 'user', text, atMs: 1, files: ['data.csv'] },
    { role: 'code', language: 'python', code: 'print(1)', status: 'ok', summary: '1', atMs: 2 },
    { role: 'assistant', text: `answer to ${text}`, atMs: 3 },
  ],
  createdAtMs: 1,
  updatedAtMs: 3,
  trimmedEntries: 0,
});

const run = (code: string, text = 'x'.repeat(100)): ExportEntry => ({
  kind: 'run',
  language: 'python',
  code,
  outputs: [{ type: 'stream', name: 'stdout', text }],
  atMs: 1,
});
const limits = { maxEntries: 100, maxBytes: 1_000_000, ttlMs: 60_000 };

/** The behaviour every ConversationStore must have (memory and Redis alike). Uses real time for TTLs. */
export function conversationStoreContract(name: string, factory: ConversationStoreFactory): void {
  describe(`ConversationStore contract: ${name}`, () => {
    const made: StoreUnderTest[] = [];
    const make = async (): Promise<ConversationStore> => {
      const s = await factory();
      made.push(s);
      return s.store;
    };
    afterEach(async () => {
      await Promise.all(made.splice(0).map((s) => s.dispose()));
    });

    it('returns undefined for an unknown key', async () => {
      const store = await make();
      expect(await store.get('web:local:c:none')).toBeUndefined();
    });

    it('stores and returns a record intact, per key', async () => {
      const store = await make();
      await store.put('web:local:c:a', record('a'), 60_000);
      await store.put('web:local:c:b', record('b'), 60_000);
      expect(await store.get('web:local:c:a')).toEqual(record('a'));
      expect(await store.get('web:local:c:b')).toEqual(record('b'));
    });

    it('does not let callers change the stored record by mutating objects', async () => {
      const store = await make();
      const r = record('x');
      await store.put('k', r, 60_000);
      r.history.push({ role: 'user', text: 'late', atMs: 9 });
      const got = await store.get('k');
      got!.trimmedEntries = 99;
      expect(await store.get('k')).toEqual(record('x'));
    });

    it('overwrites on put and forgets on delete', async () => {
      const store = await make();
      await store.put('k', record('one'), 60_000);
      await store.put('k', record('two'), 60_000);
      expect((await store.get('k'))?.history[0]).toMatchObject({ text: 'two' });
      await store.delete('k');
      expect(await store.get('k')).toBeUndefined();
      await store.delete('k');
    });

    it('expires a record ttlMs after its last write', async () => {
      const store = await make();
      await store.put('short', record('s'), 300);
      await store.put('long', record('l'), 60_000);
      await new Promise((r) => setTimeout(r, 200));
      await store.put('short', record('s2'), 300);
      await new Promise((r) => setTimeout(r, 200));
      expect((await store.get('short'))?.history[0]).toMatchObject({ text: 's2' });
      await new Promise((r) => setTimeout(r, 250));
      expect(await store.get('short')).toBeUndefined();
      expect(await store.get('long')).toBeDefined();
    });

    it('keeps an export log apart from the record, in order, and forgets it on delete', async () => {
      const store = await make();
      expect(await store.readExport('k')).toEqual({ entries: [], dropped: 0 });
      await store.appendExport('k', { kind: 'message', text: 'hello', atMs: 1 }, limits);
      await store.appendExport('k', run('print(1)'), limits);
      await store.appendExport('other', run('print(2)'), limits);
      await store.put('k', record('r'), 60_000);
      expect(await store.readExport('k')).toEqual({
        entries: [{ kind: 'message', text: 'hello', atMs: 1 }, run('print(1)')],
        dropped: 0,
      });
      expect((await store.get('k'))?.history).toHaveLength(3);
      await store.delete('k');
      expect(await store.readExport('k')).toEqual({ entries: [], dropped: 0 });
      expect(await store.get('k')).toBeUndefined();
      expect((await store.readExport('other')).entries).toEqual([run('print(2)')]);
    });

    it('drops the oldest export entries past maxEntries and counts them', async () => {
      const store = await make();
      for (let i = 0; i < 7; i += 1) await store.appendExport('k', run(`print(${i})`), { ...limits, maxEntries: 3 });
      const log = await store.readExport('k');
      expect(log.entries.map((e) => (e.kind === 'run' ? e.code : ''))).toEqual(['print(4)', 'print(5)', 'print(6)']);
      expect(log.dropped).toBe(4);
    });

    it('drops the oldest export entries past maxBytes, and an entry larger than the limit itself', async () => {
      const store = await make();
      const size = Buffer.byteLength(JSON.stringify(run('print(0)', 'é'.repeat(200))));
      const small = { ...limits, maxBytes: size * 2 + 10 };
      for (let i = 0; i < 4; i += 1) await store.appendExport('k', run(`print(${i})`, 'é'.repeat(200)), small);
      let log = await store.readExport('k');
      expect(log.entries.map((e) => (e.kind === 'run' ? e.code : ''))).toEqual(['print(2)', 'print(3)']);
      expect(log.dropped).toBe(2);
      await store.appendExport('k', run('big', 'x'.repeat(size * 3)), small);
      log = await store.readExport('k');
      expect(log).toEqual({ entries: [], dropped: 5 });
      // The byte count went back down with what was dropped: two small entries fit again.
      await store.appendExport('k', run('print(5)', 'é'.repeat(200)), small);
      await store.appendExport('k', run('print(6)', 'é'.repeat(200)), small);
      expect((await store.readExport('k')).entries).toHaveLength(2);
    });

    it('expires the export log ttlMs after its last append', async () => {
      const store = await make();
      await store.appendExport('k', run('print(1)'), { ...limits, ttlMs: 300 });
      await new Promise((r) => setTimeout(r, 450));
      expect(await store.readExport('k')).toEqual({ entries: [], dropped: 0 });
    });
  });
}
