import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withStartLock } from './start-lock.js';

let dataDir: string;
let lock: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'threadlab-lock-'));
  lock = join(dataDir, 'daemon.start.lock');
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the daemon start lock', () => {
  it('lets one holder in at a time and releases the lock', async () => {
    const order: string[] = [];
    const hold = (name: string) =>
      withStartLock({ dataDir }, async () => {
        order.push(`${name} in`);
        expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
        await new Promise((r) => setTimeout(r, 150));
        order.push(`${name} out`);
      });
    await Promise.all([hold('a'), hold('b')]);
    expect(order).toEqual(['a in', 'a out', 'b in', 'b out']);
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose holder died, or that stayed empty', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(lock, String(dead));
    expect(await withStartLock({ dataDir, waitMs: 1000 }, async () => 'taken')).toBe('taken');
    writeFileSync(lock, '');
    utimesSync(lock, new Date(Date.now() - 10_000), new Date(Date.now() - 10_000));
    expect(await withStartLock({ dataDir, waitMs: 1000 }, async () => 'taken')).toBe('taken');
  });

  it('gives up after waitMs on a live holder, saying what to do', async () => {
    writeFileSync(lock, String(process.pid));
    const startedMs = Date.now();
    await expect(withStartLock({ dataDir, waitMs: 300 }, async () => 'never')).rejects.toThrow(
      /has been starting the daemon for over 1 s .*remove that file if no threadlab command runs/,
    );
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(300);
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
  });
});
