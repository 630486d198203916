import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FUTURE_SKEW_MS,
  MAX_DEMAND_FILE_BYTES,
  poolDemandFile,
  readPoolDemand,
  writePoolDemand,
} from '../../../sandbox/pool-demand-file.js';
import { recordingLogger } from '../../support/recording-logger.js';

const NOW = 1_800_000_000_000;
let dataDir: string;
let path: string;
let log: ReturnType<typeof recordingLogger>;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'threadlab-demand-'));
  path = poolDemandFile(dataDir);
  log = recordingLogger();
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const read = (maxEntries = 10) => readPoolDemand({ path, maxEntries, nowMs: NOW, logger: log.logger });
const warnings = () => log.lines.filter((l) => l.level === 40).map((l) => String(l.msg));
const ours = (sessionStartsMs: unknown) =>
  JSON.stringify({ kind: 'threadlab.pool-demand', version: 1, sessionStartsMs });
function plant(text: string | Buffer): void {
  mkdirSync(join(dataDir, 'sandbox-pool'), { recursive: true });
  writeFileSync(path, text);
}

describe('the warm pool demand file', () => {
  it('lives in its own directory of THREADLAB_DATA_DIR, apart from the threads’ files', () => {
    expect(path).toBe(join(dataDir, 'sandbox-pool', 'demand.json'));
  });

  it('round trip: what is written is read back oldest first, the file private, no temporary left', async () => {
    const starts = [NOW - 3000, NOW - 1000, NOW - 2000];
    await writePoolDemand(path, starts);
    expect(await read()).toEqual([NOW - 3000, NOW - 2000, NOW - 1000]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'sandbox-pool')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(dataDir, 'sandbox-pool'))).toEqual(['demand.json']);
    // A second write replaces the first whole.
    await writePoolDemand(path, [NOW - 10]);
    expect(await read()).toEqual([NOW - 10]);
    expect(warnings()).toEqual([]);
  });

  it('no file is no memory, without a warning', async () => {
    expect(await read()).toEqual([]);
    expect(warnings()).toEqual([]);
  });

  it('corrupt JSON is ignored with a warning', async () => {
    plant('{"kind":"threadlab.pool-demand","version":1,"sessionStartsMs":[1,2');
    expect(await read()).toEqual([]);
    expect(warnings()).toEqual([expect.stringContaining('not valid JSON')]);
  });

  it('a file larger than any it writes is ignored unread, even when it would parse', async () => {
    plant(ours([NOW - 1000]) + ' '.repeat(MAX_DEMAND_FILE_BYTES));
    expect(await read()).toEqual([]);
    expect(warnings()).toEqual([expect.stringContaining('larger than any it writes')]);
  });

  it('files that are not ours are ignored with a warning', async () => {
    const foreign = [
      JSON.stringify({ sessionStartsMs: [NOW - 1000] }),
      JSON.stringify({ kind: 'threadlab.pool-demand', version: 2, sessionStartsMs: [NOW - 1000] }),
      ours([NOW - 1000, 'yesterday']),
      ours([NOW - 1000, -5]),
      ours([NOW - 0.5]),
      ours(Array.from({ length: 5000 }, (_, i) => i)),
      JSON.stringify({ ...JSON.parse(ours([NOW - 1000])), extra: true }),
      '[1,2,3]',
      'null',
    ];
    for (const text of foreign) {
      plant(text);
      expect(await read()).toEqual([]);
    }
    expect(warnings()).toHaveLength(foreign.length);
    expect(warnings().every((w) => w.includes('not one it writes'))).toBe(true);
  });

  it('starts in the future are dropped with a warning; those within the clock skew count as now', async () => {
    plant(ours([NOW - 2000, NOW + 1000, NOW + FUTURE_SKEW_MS + 1, NOW + 365 * 86_400_000]));
    expect(await read()).toEqual([NOW - 2000, NOW]);
    expect(warnings()).toEqual([expect.stringContaining('in the future')]);
  });

  it('more starts than THREADLAB_SANDBOX_POOL_MAX: the newest are kept, with a warning', async () => {
    plant(ours(Array.from({ length: 20 }, (_, i) => NOW - 20_000 + i * 1000)));
    const starts = await read(5);
    expect(starts).toEqual([NOW - 5000, NOW - 4000, NOW - 3000, NOW - 2000, NOW - 1000]);
    expect(warnings()).toEqual([expect.stringContaining('more session starts than THREADLAB_SANDBOX_POOL_MAX')]);
    expect(await read(0)).toEqual([]);
  });

  it('unreadable: a directory, a symlink, a FIFO or a path through a file are ignored with a warning', async () => {
    mkdirSync(path, { recursive: true });
    expect(await read()).toEqual([]);
    rmSync(path, { recursive: true });
    const elsewhere = join(dataDir, 'elsewhere.json');
    writeFileSync(elsewhere, ours([NOW - 1000]));
    symlinkSync(elsewhere, path);
    expect(await read()).toEqual([]);
    rmSync(path);
    execFileSync('mkfifo', [path]);
    expect(await read()).toEqual([]); // and does not wait for a writer
    rmSync(path);
    const blocked = poolDemandFile(elsewhere); // elsewhere.json/sandbox-pool/…: ENOTDIR
    expect(await readPoolDemand({ path: blocked, maxEntries: 10, nowMs: NOW, logger: log.logger })).toEqual([]);
    expect(warnings()).toHaveLength(4);
  });

  it.skipIf(process.getuid?.() === 0)('a file without read permission is ignored with a warning', async () => {
    plant(ours([NOW - 1000]));
    chmodSync(path, 0o000);
    expect(await read()).toEqual([]);
    expect(warnings()).toEqual([expect.stringContaining('cannot read')]);
  });

  it('a failed write throws and leaves no temporary file behind', async () => {
    mkdirSync(join(path, 'occupied'), { recursive: true }); // a directory where the file goes: rename fails
    await expect(writePoolDemand(path, [NOW])).rejects.toThrow();
    expect(readdirSync(join(dataDir, 'sandbox-pool'))).toEqual(['demand.json']);
  });
});
