import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, daemonHealth, isAlive, runCli } from './cli-process.js';

// Durable threads through the shipped CLI: `threadlab daemon stop` recycles every session's container, and the
// next daemon (started by the next `exec`) loads the session's variables back and says so.

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-durable-'));
// A save delay longer than the test: the only save that can land is the one `daemon stop` makes on the way out.
const env = cliEnv(dataDir, { THREADLAB_STATE_SAVE_DELAY_MS: '600000' });
const cli = (args: string[], stdin = '') => runCli(args, { env, stdin, cwd: dataDir });

afterAll(async () => {
  await cli(['daemon', 'stop']);
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * `threadlab daemon stop`, as a user types it before the next command: when it returns, the daemon has ended, so
 * the variables it saved on the way out are on disk before the next daemon looks for them.
 */
async function stopDaemon(): Promise<void> {
  const health = await daemonHealth(dataDir);
  if (!health) throw new Error('no daemon answers');
  const stop = await cli(['daemon', 'stop']);
  expect(stop.stdout).toBe('Daemon stopped.\n');
  expect(stop.code, stop.stderr).toBe(0);
  expect(isAlive(health.pid), `daemon ${health.pid} still runs after \`daemon stop\` returned`).toBe(false);
}

const RESTORED_LINE =
  /^\[restored 1 variable saved at (\d{4}-\d\d-\d\d \d\d:\d\d) UTC \(the bot restarted or another worker took the thread over\)\]$/m;

describe('threadlab exec --session across `threadlab daemon stop` (real processes, real Docker)', () => {
  it('the next exec has the variable back, prints the restore notice, and --json carries stateRestored', async () => {
    const startedAt = new Date();
    const set = await cli(['exec', '--session', 'durable', '-'], 'x = 41');
    expect(set.code, set.stderr).toBe(0);
    await stopDaemon();

    const next = await cli(['exec', '--session', 'durable', '-'], 'print(x + 1)');
    expect(next.stdout).toBe('42\n');
    expect(next.code, next.stderr).toBe(0);
    const notice = RESTORED_LINE.exec(next.stderr);
    expect(notice, next.stderr).not.toBeNull();
    const savedAt = Date.parse(`${notice![1]!.replace(' ', 'T')}:00Z`);
    expect(savedAt).toBeGreaterThanOrEqual(Math.floor(startedAt.getTime() / 60_000) * 60_000);
    expect(savedAt).toBeLessThanOrEqual(Date.now());
    // Told once: the run after it is an ordinary run in the same container.
    const again = await cli(['exec', '--session', 'durable', '-'], 'print(x)');
    expect(again.stdout).toBe('41\n');
    expect(again.stderr).not.toMatch(/restored/);

    await stopDaemon();
    const json = await cli(['exec', '--session', 'durable', '--json', '-'], 'x * 2');
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(result.displays[0].data['text/plain']).toBe('82');
    expect(result.stateRestored).toEqual({
      variables: 1,
      notRestored: [],
      savedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/),
      reason: 'the bot restarted or another worker took the thread over',
    });
    expect(Date.parse(result.stateRestored.savedAt)).toBeGreaterThanOrEqual(startedAt.getTime());
    expect(result.stateReset).toBeUndefined();
  });
});
