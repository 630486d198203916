import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer, fakeSay } from '../../fakes/fake-openai-server.js';
import { cliEnv, daemonHealth, isAlive, runCli } from './cli-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-config-'));
const first = new FakeOpenAiServer({ fallback: fakeSay('answer from the first server') });
const second = new FakeOpenAiServer({ fallback: fakeSay('answer from the second server') });
const daemons: number[] = [];

beforeAll(async () => {
  await Promise.all([first.start(), second.start()]);
});

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env: cliEnv(dataDir) });
  for (const pid of daemons) if (isAlive(pid)) process.kill(pid, 'SIGTERM');
  await Promise.all([first.stop(), second.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
});

async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`daemon ${pid} still runs after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function currentDaemon(): Promise<number> {
  const health = await daemonHealth(dataDir);
  if (!health) throw new Error('no daemon answers');
  daemons.push(health.pid);
  return health.pid;
}

/** Pids of `threadlab daemon` processes serving `dir` (from /proc; the tests run as root). */
function daemonsOf(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (cmdline.at(-2) === 'daemon' && environ.includes(`THREADLAB_DATA_DIR=${dir}`)) pids.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}

describe('threadlab exec and chat follow a changed configuration (real processes, real Docker)', () => {
  it('a call with another OPENAI_BASE_URL, key or .env reaches the new server; equal configurations share a session', async () => {
    const envA = cliEnv(dataDir, { OPENAI_BASE_URL: first.baseUrl, OPENAI_API_KEY: 'sk-first-key-123' });
    const set = await runCli(['exec', '--session', 'calc', '-'], { env: envA, stdin: 'x = 41\nprint("set")' });
    expect(set.stdout).toBe('set\n');
    const pidA = await currentDaemon();

    const chatA = await runCli(['chat', '--thread', 't', '--json', 'hello'], { env: envA });
    expect(JSON.parse(chatA.stdout).text).toContain('answer from the first server');
    expect(first.requests).toHaveLength(1);

    // Same configuration: same daemon, same session.
    const get = await runCli(['exec', '--session', 'calc', '-'], { env: { ...envA }, stdin: 'print(x + 1)' });
    expect(get.stdout).toBe('42\n');
    expect(await currentDaemon()).toBe(pidA);

    const envB = { ...envA, OPENAI_BASE_URL: second.baseUrl };
    const chatB = await runCli(['chat', '--thread', 't', '--json', 'hello again'], { env: envB });
    expect(chatB.code).toBe(0);
    expect(JSON.parse(chatB.stdout).text).toContain('answer from the second server');
    expect(chatB.stderr).toContain('The configuration changed');
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(1);
    const pidB = await currentDaemon();
    expect(pidB).not.toBe(pidA);
    await waitForExit(pidA, 30_000);

    // Only the key changes: a new daemon, which sends the new key.
    const envC = { ...envB, OPENAI_API_KEY: 'sk-second-key-456' };
    const chatC = await runCli(['chat', '--thread', 't', '--json', 'and again'], { env: envC });
    expect(JSON.parse(chatC.stdout).text).toContain('answer from the second server');
    expect(second.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer sk-first-key-123',
      'Bearer sk-second-key-456',
    ]);
    const pidC = await currentDaemon();
    expect(pidC).not.toBe(pidB);

    // Only .env (in the working directory) changes.
    const cwd = mkdtempSync(join(tmpdir(), 'threadlab-cli-dotenv-'));
    const envD: Record<string, string | undefined> = { ...envC };
    delete envD.OPENAI_BASE_URL;
    writeFileSync(join(cwd, '.env'), `OPENAI_BASE_URL=${first.baseUrl}\n`);
    const chatD = await runCli(['chat', '--thread', 't', '--json', 'from a .env'], { env: envD, cwd });
    expect(JSON.parse(chatD.stdout).text).toContain('answer from the first server');
    writeFileSync(join(cwd, '.env'), `OPENAI_BASE_URL=${second.baseUrl}\n`);
    const chatE = await runCli(['chat', '--thread', 't', '--json', 'from the next .env'], { env: envD, cwd });
    expect(JSON.parse(chatE.stdout).text).toContain('answer from the second server');
    expect([first.requests.length, second.requests.length]).toEqual([2, 3]);
    rmSync(cwd, { recursive: true, force: true });
    await currentDaemon();

    // The fingerprint is a hash: neither key reaches the daemon's log.
    const log = readFileSync(join(dataDir, 'daemon.log'), 'utf8');
    expect(log).not.toMatch(/sk-(first|second)-key/);
  });

  it('a replaced daemon finishes its running call, then exits and removes its containers', async () => {
    const envA = cliEnv(dataDir, { OPENAI_BASE_URL: first.baseUrl });
    await runCli(['exec', '-'], { env: envA, stdin: 'print("warm")' });
    const pidA = await currentDaemon();
    const slow = runCli(['exec', '--session', 'slow', '-'], {
      env: envA,
      // 25 s: the new daemon must start and answer meanwhile, which a busy machine takes over 15 s for.
      stdin: 'import time\nfor i in range(50):\n    time.sleep(0.5)\nprint("finished")',
    });
    let slowDone = false;
    void slow.then(() => (slowDone = true));
    await new Promise((r) => setTimeout(r, 1500));
    const envB = { ...envA, OPENAI_BASE_URL: second.baseUrl };
    const quick = await runCli(['exec', '-'], { env: envB, stdin: 'print("new daemon")' });
    expect(quick.stdout).toBe('new daemon\n');
    const pidB = await currentDaemon();
    expect(pidB).not.toBe(pidA);
    expect(slowDone).toBe(false); // the new daemon did not wait for the old one's call
    expect(isAlive(pidA)).toBe(true);
    const slowRun = await slow;
    expect(slowRun.stdout).toBe('finished\n');
    expect(slowRun.code).toBe(0);
    await waitForExit(pidA, 30_000);
    const left = await new Docker().listContainers({
      all: true,
      filters: { label: [`dev.threadlab.instance=cli-${pidA}`] },
    });
    expect(left).toEqual([]);
  });

  it('commands started together start one daemon, not one each', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'threadlab-cli-together-'));
    const env = cliEnv(fresh);
    try {
      const runs = await Promise.all(
        [1, 2, 3].map((n) => runCli(['exec', '--session', 'same', '-'], { env, stdin: `print(${n})` })),
      );
      expect(runs.map((r) => r.stdout).sort()).toEqual(['1\n', '2\n', '3\n']);
      const running = daemonsOf(fresh);
      daemons.push(...running);
      expect(running).toHaveLength(1);
    } finally {
      await runCli(['daemon', 'stop'], { env });
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
