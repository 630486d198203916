import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebHistoryRetention } from '../../../adapters/web/web-retention.js';
import { threadHash } from '../../../src/governance/audit/audit-record.js';
import { FilesRetention, StateRetention } from '../../../sandbox/mirror-retention.js';
import { createParticipantIndex, PARTICIPANT_LIMITS } from '../../../src/governance/retention/retention-index.js';
import { MemoryRetention } from '../../../src/governance/retention/retention-memory.js';
import { parseDuration } from '../../../src/domain/duration.js';
import { purge } from '../../../src/governance/retention/retention.js';
import type { RetentionSource } from '../../../src/ports/retention-source.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { listTree, seedThread, webKey } from '../../support/retention-fixture.js';

const DAY_MS = 86_400_000;
const limits = { maxEntries: 10, maxBytes: 10_000, ttlMs: DAY_MS };

let dataDir: string;
let store: MemoryConversationStore;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'threadlab-retention-'));
  store = new MemoryConversationStore();
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

function setup() {
  const index = createParticipantIndex(dataDir);
  const sources: RetentionSource[] = [
    new FilesRetention({ root: join(dataDir, 'sandbox-files'), nameOf: threadHash, keyOf: (n) => index.keyOf(n) }),
    new MemoryRetention({ store, idleKeys: (c) => index.idleKeys(c), where: 'this process' }),
    new WebHistoryRetention(join(dataDir, 'web')),
    index,
  ];
  return { index, sources };
}

async function remember(key: string, atMs = Date.now()): Promise<void> {
  await store.put(
    key,
    { history: [{ role: 'user', text: 'q', atMs }], createdAtMs: atMs, updatedAtMs: atMs, trimmedEntries: 0 },
    DAY_MS,
  );
  await store.appendExport(key, { kind: 'message', text: 'q', atMs }, limits);
}

describe('purge', () => {
  it("removes one thread's files, state, memory, export log, web history and index entry, and nothing of another", async () => {
    const { index, sources } = setup();
    const [a, b] = [webKey('thread-a'), webKey('thread-b')];
    seedThread(dataDir, a, { webId: 'thread-a' });
    seedThread(dataDir, b, { webId: 'thread-b' });
    await Promise.all([remember(a), remember(b), index.record(a, 'U1'), index.record(b, 'U2')]);
    const before = listTree(dataDir);

    const report = await purge({ thread: a }, { sources, participants: index });

    const { removed } = report;
    expect(report.failures).toEqual([]);
    expect(removed.find((i) => i.what === 'files')).toMatchObject({ thread: a, files: 1, bytes: 5 });
    expect(removed.find((i) => i.what === 'state')).toMatchObject({ thread: a, files: 2, bytes: 9 });
    expect(removed.find((i) => i.what === 'memory')?.note).toBe(
      '1 memory entries, 1 export log entries (this process)',
    );
    expect(removed.find((i) => i.what === 'web history')?.note).toBe('2 messages, 1 files');
    expect(removed.find((i) => i.what === 'index')).toMatchObject({ thread: a });
    // Exactly thread A's files are gone; B's are all still there.
    const aFiles = before.filter((p) => p.includes(threadHash(a)) || p.includes('thread-a'));
    expect(aFiles.length).toBeGreaterThan(6);
    expect(listTree(dataDir)).toEqual(before.filter((p) => !aFiles.includes(p)));
    expect(await store.get(a)).toBeUndefined();
    expect((await store.readExport(a)).entries).toEqual([]);
    expect(await store.get(b)).toBeDefined();
    expect((await store.readExport(b)).entries).toHaveLength(1);
    expect(await index.threadsOf('U2')).toEqual([{ key: b, others: [] }]);
  });

  it("purges a user's own threads and lists, without removing, a thread shared with another user", async () => {
    const { index, sources } = setup();
    const [own, shared, other] = ['slack:T1:C1:1.1', 'slack:T1:C1:2.2', 'slack:T1:C1:3.3'];
    for (const k of [own, shared, other]) seedThread(dataDir, k);
    await remember(own);
    await index.record(own, 'U1');
    await index.record(shared, 'U1');
    await index.record(shared, 'U2');
    await index.record(other, 'U2');

    const report = await purge({ user: 'U1' }, { sources, participants: index });

    expect(new Set(report.removed.map((i) => i.thread))).toEqual(new Set([own]));
    expect(report.removed.map((i) => i.what).sort()).toEqual(['files', 'index', 'memory', 'state']);
    expect(report.shared).toEqual([{ key: shared, others: 1 }]);
    expect(existsSync(join(dataDir, 'sandbox-files', threadHash(own)))).toBe(false);
    expect(existsSync(join(dataDir, 'sandbox-files', threadHash(shared)))).toBe(true);
    expect(existsSync(join(dataDir, 'sandbox-files', threadHash(other)))).toBe(true);
  });

  it('--older-than removes only threads untouched for that long, named by key where the index knows it', async () => {
    const { index, sources } = setup();
    const [old, fresh] = [webKey('old'), webKey('fresh')];
    seedThread(dataDir, old, { webId: 'old', ageMs: 10 * DAY_MS });
    seedThread(dataDir, fresh, { webId: 'fresh' });
    await remember(old, Date.now() - 10 * DAY_MS);
    await remember(fresh);
    await index.record(old, 'U1', Date.now() - 10 * DAY_MS);
    await index.record(fresh, 'U1');

    const report = await purge({ olderThanMs: parseDuration('7d')! }, { sources, participants: index });

    expect(report.removed.map((i) => `${i.what} ${i.thread}`).sort()).toEqual(
      ['files', 'index', 'memory', 'state', 'web history'].map((w) => `${w} ${old}`).sort(),
    );
    expect(existsSync(join(dataDir, 'sandbox-files', threadHash(fresh)))).toBe(true);
    expect(existsSync(join(dataDir, 'web', 'threads', 'fresh', 'messages.jsonl'))).toBe(true);
    expect(await store.get(old)).toBeUndefined();
    expect(await store.get(fresh)).toBeDefined();
  });

  it('a failing source is reported and the others still purge', async () => {
    const { index, sources } = setup();
    const key = webKey('x');
    seedThread(dataDir, key, { webId: 'x' });
    const broken: RetentionSource = {
      name: 'broken',
      purgeThread: () => Promise.reject(new Error('engine unreachable')),
      purgeIdle: async () => [],
    };
    const report = await purge({ thread: key }, { sources: [broken, ...sources], participants: index });
    expect(report.failures).toEqual([{ source: 'broken', thread: key, error: 'engine unreachable' }]);
    expect(report.removed.some((i) => i.what === 'files')).toBe(true);
  });
});

describe('StateRetention', () => {
  it('removes only the saved state of threads idle past the cutoff, leaving their files', async () => {
    const [old, fresh] = ['slack:T:C:1', 'slack:T:C:2'];
    seedThread(dataDir, old, { ageMs: 3 * DAY_MS });
    seedThread(dataDir, fresh);
    const source = new StateRetention({ root: join(dataDir, 'sandbox-files'), nameOf: threadHash });
    const removed = await source.purgeIdle(Date.now() - DAY_MS);
    expect(removed).toEqual([{ what: 'state', thread: threadHash(old), files: 2, bytes: 9 }]);
    expect(existsSync(join(dataDir, 'sandbox-files', threadHash(old), 'data.csv'))).toBe(true);
    expect(existsSync(join(dataDir, 'sandbox-files', threadHash(old), '.threadlab', 'state'))).toBe(false);
    expect(existsSync(join(dataDir, 'sandbox-files', threadHash(fresh), '.threadlab', 'state', 'state.dill'))).toBe(
      true,
    );
  });
});

describe('ParticipantIndex', () => {
  it(`keeps at most ${PARTICIPANT_LIMITS.maxUsersPerThread} users per thread and says once when one is not recorded`, async () => {
    const full: string[] = [];
    const index = createParticipantIndex(dataDir, (key, user) => full.push(`${key} ${user}`));
    const key = 'discord:G:C:T';
    for (let i = 0; i <= PARTICIPANT_LIMITS.maxUsersPerThread + 1; i += 1) await index.record(key, `U${i}`);
    const file = JSON.parse(readFileSync(join(dataDir, 'retention', 'threads', `${threadHash(key)}.json`), 'utf8'));
    expect(file.users).toHaveLength(PARTICIPANT_LIMITS.maxUsersPerThread);
    expect(file.full).toBe(true);
    expect(full).toEqual([`${key} U${PARTICIPANT_LIMITS.maxUsersPerThread}`]);
    expect(await index.threadsOf(`U${PARTICIPANT_LIMITS.maxUsersPerThread}`)).toEqual([]);
    expect((await index.threadsOf('U0'))[0]?.others).toHaveLength(PARTICIPANT_LIMITS.maxUsersPerThread - 1);
  });

  it('records two writers arriving at once', async () => {
    const index = createParticipantIndex(dataDir);
    await Promise.all(['A', 'B', 'C'].map((u) => index.record('web:local:web:t', u)));
    expect((await index.threadsOf('A'))[0]?.others.sort()).toEqual(['B', 'C']);
  });
});

describe('parseDuration', () => {
  it('takes a number with a unit and refuses the rest', () => {
    expect(parseDuration('30d')).toBe(30 * DAY_MS);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('2w')).toBe(14 * DAY_MS);
    for (const bad of ['30', '0d', '-1d', '1y', '1.5d', '', '9999999d']) expect(parseDuration(bad)).toBeUndefined();
  });
});
