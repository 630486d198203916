import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { threadHash } from '../../../src/governance/audit/audit-record.js';
import { pseudonymiseAudit } from '../../../src/governance/retention/retention-audit.js';
import { PurgeHonouringStore, PurgeMarks } from '../../../src/governance/retention/retention-marks.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'threadlab-marks-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const LIMITS = { maxEntries: 100, maxBytes: 1_000_000, ttlMs: 60_000 };
const record = (atMs: number) => ({
  history: [{ role: 'user' as const, text: 'q', atMs }],
  createdAtMs: atMs,
  updatedAtMs: atMs,
  trimmedEntries: 0,
});

it("a running process's memory and export log from before a purge mark are forgotten; others and later ones stay", async () => {
  const store = new PurgeHonouringStore(new MemoryConversationStore(), new PurgeMarks(dir));
  const t0 = Date.now() - 10_000;
  for (const key of ['web:local:web:a', 'web:local:web:b']) {
    await store.put(key, record(t0), 60_000);
    await store.appendExport(key, { kind: 'message', text: 'q', atMs: t0 }, LIMITS);
  }
  await new PurgeMarks(dir).mark(['web:local:web:a'], t0 + 1);

  expect(await store.readExport('web:local:web:a')).toEqual({ entries: [], dropped: 0 });
  expect(await store.get('web:local:web:a')).toBeUndefined();
  expect((await store.readExport('web:local:web:b')).entries).toHaveLength(1);
  expect(await store.get('web:local:web:b')).toBeDefined();

  // A message after the purge starts the thread's memory anew, and it stays.
  await store.put('web:local:web:a', record(Date.now()), 60_000);
  expect(await store.get('web:local:web:a')).toBeDefined();
});

it("a purged thread's run lines keep their sizes; their file names become pseudonyms, the same name the same one", async () => {
  const key = 'slack:T1:C1:1.1';
  const run = (thread: string, files: string[]) => ({
    v: 1,
    ts: new Date().toISOString(),
    user: 'U1',
    platform: 'slack',
    workspace: 'T1',
    channel: 'C1',
    thread,
    threadHash: threadHash(thread),
    job: 'j1',
    kind: 'run',
    filesIn: files.map((name) => ({ name, bytes: 3 })),
    filesInMore: 0,
    filesOut: [],
    filesOutMore: 0,
  });
  const file = join(dir, 'audit.jsonl');
  const lines = [run(key, ['salaries.csv']), run('slack:T1:C1:2.2', ['kept.csv']), run(key, ['salaries.csv'])];
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);

  const result = await pseudonymiseAudit([file], { threadHashes: new Set([threadHash(key)]) });

  expect(result).toMatchObject({ pseudonymised: 0, fileNamesErased: 2 });
  const after = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(JSON.stringify(after)).not.toContain('salaries.csv');
  expect(after[1]).toEqual(lines[1]);
  expect(after[0]).toMatchObject({ pseudonym: true, user: 'U1', filesIn: [{ bytes: 3 }] });
  expect(after[0].filesIn[0].name).toMatch(/^erased-[0-9a-f]{16}$/);
  expect(after[2].filesIn[0].name).toBe(after[0].filesIn[0].name);
});
