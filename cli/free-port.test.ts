import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ephemeralLow, freePort } from './free-port.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const hold = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
    servers.push(server);
  });

describe('freePort', () => {
  it('picks below the ephemeral range, inside its own slice', async () => {
    const low = ephemeralLow();
    const width = Math.floor((low - 15_000) / 4);
    for (let index = 0; index < 4; index += 1) {
      const port = await freePort({ index, count: 4 });
      expect(port).toBeGreaterThanOrEqual(15_000 + index * width);
      expect(port).toBeLessThan(15_000 + (index + 1) * width);
      expect(port).toBeLessThan(low);
    }
  });

  it('skips a port that is taken and never hands out the same port twice in a row', async () => {
    const slice = { index: 3, count: 8 };
    const first = await freePort(slice);
    await hold(first);
    const seen = new Set([first]);
    for (let i = 0; i < 20; i += 1) {
      const port = await freePort(slice);
      expect(seen.has(port)).toBe(false);
      seen.add(port);
    }
  });

  it('reads the ephemeral range, and falls back to 32768 on a missing or hostile file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'free-port-'));
    const file = join(dir, 'range');
    writeFileSync(file, '40000\t60999\n');
    expect(ephemeralLow(file)).toBe(40_000);
    writeFileSync(file, 'not a number');
    expect(ephemeralLow(file)).toBe(32_768);
    writeFileSync(file, '80');
    expect(ephemeralLow(file)).toBe(32_768);
    expect(ephemeralLow(join(dir, 'missing'))).toBe(32_768);
  });
});
