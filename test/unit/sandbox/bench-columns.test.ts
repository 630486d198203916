import type Docker from 'dockerode';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { benchColumns, columnLabel } from '../../../cli/bench/platform-columns.js';
import { loadConfig } from '../../../src/config/index.js';
import type { RankPlatforms } from '../../../sandbox/runtime.js';

const base = {
  docker: {} as Docker,
  image: 'threadlab-sandbox:test',
  limits: loadConfig({}).sandbox,
  logger: pino({ level: 'silent' }),
};
const rank: RankPlatforms = async () => ({
  source: 'cached',
  results: [
    { platform: 'ptrace', ok: true, readyMs: 676 },
    { platform: 'kvm', ok: false, error: 'did not become ready within 20000 ms' },
    { platform: 'systrap', ok: true, readyMs: 240 },
  ],
});

describe('threadlab bench sandbox columns', () => {
  it('gives runc and a column per gVisor platform that passed its probe, and says why the others are left out', async () => {
    const registered = ['runc', 'runsc', 'runsc-ptrace', 'runsc-kvm', 'runsc-systrap'];
    const { columns, platformsSkipped } = await benchColumns({ ...base, rank }, ['runc', 'runsc'], registered);
    expect(columns.map(columnLabel)).toEqual(['runc', 'runsc-ptrace', 'runsc-systrap']);
    expect(platformsSkipped).toEqual(['kvm: failed its probe (did not become ready within 20000 ms)']);
  });

  it('keeps one runsc column where the engine has no runtime per platform, and probes nothing under runc alone', async () => {
    let probed = 0;
    const counting: RankPlatforms = async (p) => (probed++, rank(p));
    expect((await benchColumns({ ...base, rank: counting }, ['runc', 'runsc'], ['runc', 'runsc'])).columns).toEqual([
      { runtime: 'runc' },
      { runtime: 'runsc' },
    ]);
    expect(
      (await benchColumns({ ...base, rank: counting }, ['runc'], ['runc', 'runsc-kvm', 'runsc-ptrace'])).columns,
    ).toEqual([{ runtime: 'runc' }]);
    expect(probed).toBe(0);
  });
});
