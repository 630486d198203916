import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pruneMirrors } from '../../../sandbox/mirror-retention.js';

const DAY = 24 * 60 * 60 * 1000;
let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function mirror(name: string, ageMs: number, nestedAgeMs = ageMs): void {
  const dir = join(root, name, 'sub');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, name, 'a.csv'), 'x');
  writeFileSync(join(dir, 'b.csv'), 'y');
  const at = (ms: number) => new Date(Date.now() - ms);
  utimesSync(join(root, name, 'a.csv'), at(ageMs), at(ageMs));
  utimesSync(join(dir, 'b.csv'), at(nestedAgeMs), at(nestedAgeMs));
  utimesSync(dir, at(ageMs), at(ageMs));
  utimesSync(join(root, name), at(ageMs), at(ageMs));
}

describe('pruneMirrors', () => {
  it('deletes only session copies untouched for longer than the TTL, keeping live ones', async () => {
    root = mkdtempSync(join(tmpdir(), 'threadlab-mirrors-'));
    mirror('old', 10 * DAY);
    mirror('recent-inside', 10 * DAY, 1 * DAY);
    mirror('old-but-live', 10 * DAY);
    mirror('fresh', 1000);
    const removed = await pruneMirrors(root, { maxAgeMs: 7 * DAY, keep: (name) => name === 'old-but-live' });
    expect(removed).toEqual(['old']);
    expect(readdirSync(root).sort()).toEqual(['fresh', 'old-but-live', 'recent-inside']);
  });

  it('does nothing when the folder does not exist yet', async () => {
    root = join(tmpdir(), `threadlab-missing-${Date.now()}`);
    expect(await pruneMirrors(root, { maxAgeMs: DAY, keep: () => false })).toEqual([]);
  });
});
