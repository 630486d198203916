import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildOnce } from '../../../sandbox/build-lock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'threadlab-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('buildOnce', () => {
  it('builds once when two ask at the same time; the other waits and finds it made', async () => {
    let made = false;
    let builds = 0;
    const said: string[] = [];
    const options = {
      name: 'threadlab-sandbox:abc',
      exists: async () => made,
      say: (l: string) => said.push(l),
      dir,
      pollMs: 20,
    };
    const build = async () => {
      builds += 1;
      await sleep(150);
      made = true;
      return 'built';
    };
    const outcomes = await Promise.all([buildOnce(options, build), buildOnce(options, build)]);
    expect(outcomes.sort()).toEqual(['built', 'elsewhere']);
    expect(builds).toBe(1);
    expect(said).toEqual([`waiting for the build of threadlab-sandbox:abc in progress (pid ${process.pid})`]);
    expect(readdirSync(dir)).toEqual([]); // the lock is gone
  });

  it('takes over the lock of a process that died while building', async () => {
    const dead = spawnSync('true').pid;
    writeFileSync(join(dir, 'threadlab-build-threadlab-sandbox-abc.lock'), String(dead));
    const outcome = await buildOnce(
      { name: 'threadlab-sandbox:abc', exists: async () => false, say: () => {}, dir },
      async () => 'built',
    );
    expect(outcome).toBe('built');
  });

  it('a build that failed frees the lock: the one waiting builds itself and says its own outcome', async () => {
    const options = { name: 'img', exists: async () => false, say: () => {}, dir, pollMs: 20 };
    const failing = buildOnce(options, async () => {
      await sleep(100);
      throw new Error('apt failed');
    });
    await sleep(20);
    const second = buildOnce(options, async () => 'built by the second');
    await expect(failing).rejects.toThrow('apt failed');
    await expect(second).resolves.toBe('built by the second');
    expect(existsSync(join(dir, 'threadlab-build-img.lock'))).toBe(false);
  });

  it('waits no longer than its bound for a live holder, and says how to go on', async () => {
    writeFileSync(join(dir, 'threadlab-build-img.lock'), String(process.pid)); // a live holder that never finishes
    await expect(
      buildOnce(
        { name: 'img', exists: async () => false, say: () => {}, dir, waitMs: 100, pollMs: 20 },
        async () => 'x',
      ),
    ).rejects.toThrow(/has been building img for too long; stop it or remove .*threadlab-build-img\.lock/);
  });
});
