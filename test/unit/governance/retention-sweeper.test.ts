import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebHistoryRetention } from '../../../adapters/web/web-retention.js';
import { FileAuditLog } from '../../../src/governance/audit/audit-file.js';
import { formatAuditLine, threadHash, type AuditRecord } from '../../../src/governance/audit/audit-record.js';
import { StateRetention } from '../../../sandbox/mirror-retention.js';
import { RetentionSweeper, type SweepKind } from '../../../src/governance/retention/retention-sweeper.js';
import { egressRecord } from '../../support/audit-fixture.js';
import { recordingLogger } from '../../support/recording-logger.js';
import { seedThread, webKey } from '../../support/retention-fixture.js';

const DAY_MS = 86_400_000;
let dataDir: string;
beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'threadlab-sweeper-'))));
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const stateDir = (key: string) => join(dataDir, 'sandbox-files', threadHash(key), '.threadlab', 'state');
const filesDir = (key: string) => join(dataDir, 'sandbox-files', threadHash(key));
const webDir = (id: string) => join(dataDir, 'web', 'threads', id);

function kinds(): SweepKind[] {
  const root = join(dataDir, 'sandbox-files');
  return [
    { kind: 'state', maxAgeMs: DAY_MS, source: new StateRetention({ root, nameOf: threadHash }) },
    { kind: 'web history', maxAgeMs: DAY_MS, source: new WebHistoryRetention(join(dataDir, 'web')) },
  ];
}

const record = (user: string, atMs: number): AuditRecord => egressRecord(user, atMs);

const usersIn = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { user: string }).user);

describe('RetentionSweeper', () => {
  it("removes an old thread's saved state and web history, leaves a fresh one and a live one, and logs the counts", async () => {
    const [old, fresh, live] = [webKey('old'), webKey('fresh'), webKey('live')];
    seedThread(dataDir, old, { webId: 'old', ageMs: 3 * DAY_MS });
    seedThread(dataDir, fresh, { webId: 'fresh' });
    seedThread(dataDir, live, { webId: 'live', ageMs: 3 * DAY_MS });
    const { lines, logger } = recordingLogger();
    const sweeper = new RetentionSweeper({
      kinds: kinds(),
      liveHashes: async () => new Set([threadHash(live)]),
      logger,
    });

    const summary = await sweeper.sweep();

    expect(summary).toMatchObject({ removed: { state: 1, 'web history': 1 }, more: [], failures: [] });
    expect(existsSync(stateDir(old))).toBe(false);
    expect(existsSync(join(filesDir(old), 'data.csv'))).toBe(true); // files have their own retention
    expect(existsSync(webDir('old'))).toBe(false);
    for (const key of [fresh, live]) expect(existsSync(join(stateDir(key), 'state.dill'))).toBe(true);
    for (const id of ['fresh', 'live']) expect(existsSync(join(webDir(id), 'messages.jsonl'))).toBe(true);
    const line = lines.find((l) => l.msg === 'retention sweep');
    expect(line).toMatchObject({ removed: { state: 1, 'web history': 1 }, auditLines: 0, auditFiles: 0 });
  });

  it('removes at most maxThreadsPerKind threads per sweep, says more is left, and takes the rest next time', async () => {
    for (const n of [1, 2, 3]) seedThread(dataDir, webKey(`t${n}`), { ageMs: 3 * DAY_MS });
    const { lines, logger } = recordingLogger();
    const sweeper = new RetentionSweeper({
      kinds: kinds().slice(0, 1),
      liveHashes: async () => new Set(),
      logger,
      maxThreadsPerKind: 2,
    });

    expect(await sweeper.sweep()).toMatchObject({ removed: { state: 2 }, more: ['state'] });
    expect([1, 2, 3].filter((n) => existsSync(stateDir(webKey(`t${n}`))))).toHaveLength(1);
    expect(lines.at(-1)).toMatchObject({ msg: 'retention sweep', more: ['state'] });
    expect(await sweeper.sweep()).toMatchObject({ removed: { state: 1 }, more: [] });
    expect([1, 2, 3].filter((n) => existsSync(stateDir(webKey(`t${n}`))))).toHaveLength(0);
  });

  it('sweeps no thread when the live sessions cannot be listed, and a failing source never throws', async () => {
    seedThread(dataDir, webKey('old'), { webId: 'old', ageMs: 3 * DAY_MS });
    const { lines, logger } = recordingLogger();
    const blind = new RetentionSweeper({
      kinds: kinds(),
      liveHashes: () => Promise.reject(new Error('Docker is not reachable')),
      logger,
    });
    expect((await blind.sweep()).failures).toEqual([{ kind: 'live sessions', error: 'Docker is not reachable' }]);
    expect(existsSync(stateDir(webKey('old')))).toBe(true);
    expect(lines.at(-1)).toMatchObject({ level: 40, msg: 'retention sweep: some data could not be removed' });

    const broken = new RetentionSweeper({
      kinds: [{ kind: 'state', maxAgeMs: DAY_MS, source: { purgeIdle: () => Promise.reject(new Error('EACCES')) } }],
      liveHashes: async () => new Set(),
      logger,
    });
    expect((await broken.sweep()).failures).toEqual([{ kind: 'state', error: 'EACCES' }]);
  });

  it('sweeps at start, then every interval, and no more after stop()', async () => {
    seedThread(dataDir, webKey('old'), { ageMs: 3 * DAY_MS });
    const { lines, logger } = recordingLogger();
    const sweeps = () => lines.filter((l) => l.msg === 'retention sweep').length;
    const sweeper = new RetentionSweeper({ kinds: kinds(), liveHashes: async () => new Set(), logger, intervalMs: 20 });
    sweeper.start();
    await expect.poll(sweeps).toBeGreaterThanOrEqual(2);
    expect(existsSync(stateDir(webKey('old')))).toBe(false);
    await sweeper.stop();
    const after = sweeps();
    await new Promise((r) => setTimeout(r, 100));
    expect(sweeps()).toBe(after);
  });
});

describe('audit retention', () => {
  it('drops lines older than the cutoff, removes wholly old rotated files, keeps 0600 and newer lines', async () => {
    const path = join(dataDir, 'audit.jsonl');
    const now = Date.now();
    const old = now - 10 * DAY_MS;
    writeFileSync(`${path}.2`, formatAuditLine(record('ancient', old - DAY_MS)), { mode: 0o600 });
    utimesSync(`${path}.2`, (old - DAY_MS) / 1000, (old - DAY_MS) / 1000);
    writeFileSync(`${path}.1`, formatAuditLine(record('old1', old)) + formatAuditLine(record('new1', now)), {
      mode: 0o600,
    });
    const { logger } = recordingLogger();
    // Large enough that the lines written during the sweep never rotate the file: on a loaded machine a slow
    // sweep saw thousands of them, and a rotation mid-sweep moves old lines to the next sweep.
    const writer = new FileAuditLog({ path, maxBytes: 256 << 20, keepFiles: 4, logger });
    writer.write(record('old0', old));
    writer.write(record('new0', now - 1000));
    const sweeper = new RetentionSweeper({
      kinds: [],
      audit: { path, maxAgeMs: 7 * DAY_MS },
      liveHashes: async () => new Set(),
      logger,
    });

    // The bot keeps writing while the sweep rewrites the file under it: no line may be lost.
    let written = 0;
    let sweeping = true;
    const writing = (async () => {
      while (sweeping && written < 50_000) {
        writer.write(record(`during${written}`, now));
        written += 1;
        await new Promise((r) => setImmediate(r));
      }
    })();
    const summary = await sweeper.sweep();
    sweeping = false;
    await writing;
    writer.write(record('after', now));
    writer.close();

    expect(summary).toMatchObject({ auditLines: 2, auditFiles: 1 });
    expect(existsSync(`${path}.2`)).toBe(false);
    expect(usersIn(`${path}.1`)).toEqual(['new1']);
    const during = Array.from({ length: written }, (_, i) => `during${i}`);
    expect(written).toBeGreaterThan(2);
    expect(usersIn(path)).toEqual(['new0', ...during, 'after']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
