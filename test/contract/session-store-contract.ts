import { afterEach, describe, expect, it } from 'vitest';
import type { SessionRecord, SessionStore } from '../../src/ports/session-store.js';

export interface StoreUnderTest {
  store: SessionStore;
  /** Closes the store and removes what it stored. */
  dispose(): Promise<void>;
}

export type SessionStoreFactory = () => Promise<StoreUnderTest>;

const record = (text: string): SessionRecord => ({
  history: [
    { role: 'user', text, atMs: 1, files: ['data.csv'] },
    { role: 'code', language: 'python', code: 'print(1)', status: 'ok', summary: '1', atMs: 2 },
    { role: 'assistant', text: `answer to ${text}`, atMs: 3 },
  ],
  createdAtMs: 1,
  updatedAtMs: 3,
  trimmedEntries: 0,
});

/** The behaviour every SessionStore must have (memory and Redis alike). Uses real time for TTLs. */
export function sessionStoreContract(name: string, factory: SessionStoreFactory): void {
  describe(`SessionStore contract: ${name}`, () => {
    const made: StoreUnderTest[] = [];
    const make = async (): Promise<SessionStore> => {
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
  });
}
