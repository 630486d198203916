import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnThreadlab } from './processes.js';

// The web chat answers from the process holding the browser's connection; a worker's reply for it
// used to be dropped with a log line. Split roles with the web chat on are refused at start instead.
describe('threadlab start with the web chat in split roles', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-webroles-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  for (const [role, webEnabled, why] of [
    ['worker', 'auto', 'THREADLAB_WEB_ENABLED=auto'],
    ['gateway', 'true', 'THREADLAB_WEB_ENABLED=true'],
  ] as const) {
    it(`--role ${role} with ${why} exits 2 and says how to run it`, async () => {
      const proc = spawnThreadlab({
        name: role,
        role,
        metricsPort: 0,
        env: {
          REDIS_URL: 'redis://127.0.0.1:1',
          THREADLAB_WEB_ENABLED: webEnabled,
          THREADLAB_DATA_DIR: dataDir,
          THREADLAB_SANDBOX_IMAGE: 'threadlab-sandbox:never-used',
        },
      });
      const exit = await proc.exited;
      expect(exit.code, proc.output()).toBe(2);
      expect(proc.output()).toContain('The local web chat runs only with --role all');
      expect(proc.output()).toContain(why);
      expect(proc.output()).toContain('THREADLAB_WEB_ENABLED=false');
    });
  }
});
