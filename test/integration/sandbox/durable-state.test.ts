import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { SandboxLimits } from '../../../sandbox/container-spec.js';
import { createDockerSandbox, type DockerSandbox } from '../../../sandbox/index.js';
import { threadHash } from '../../../src/domain/thread-key.js';
import { containersOf, docker, logger, sandboxImage, testLimits, testRuntime } from './helpers.js';
import { anyRuntime } from '../../support/any-runtime.js';

// Durable threads against the real engine: variables saved after a run come back in the next container, whatever
// replaced it (idle TTL, LRU eviction, close as on SIGTERM or `daemon stop`, a worker that died without closing).

const dataDirs: string[] = [];
const open: DockerSandbox[] = [];
let counter = 0;

async function sandboxOn(dataDir: string, limits: Partial<SandboxLimits> = {}): Promise<DockerSandbox> {
  const sandbox = await createDockerSandbox({
    docker,
    image: await sandboxImage(),
    limits: testLimits({ stateSaveDelayMs: 0, ...limits }),
    dataDir,
    logger,
    instanceId: `test-durable-${process.pid}-${Date.now().toString(36)}-${counter++}`,
    runtime: testRuntime(),
  });
  open.push(sandbox);
  return sandbox;
}

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'threadlab-durable-'));
  dataDirs.push(dir);
  return dir;
}

/** The saved state's description on the host, once the save after the last run has landed. */
async function savedMeta(dataDir: string, key: string, previousDigest?: string): Promise<{ digest: string }> {
  const file = join(dataDir, threadHash(key), '.threadlab', 'state', 'state.json');
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const meta = JSON.parse(readFileSync(file, 'utf8')) as { digest: string };
      if (meta.digest !== previousDigest) return meta;
    } catch {
      // not written yet
    }
    if (Date.now() > deadline) throw new Error(`no saved state at ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const SETUP = [
  'import pandas as pd',
  'import numpy as np',
  'import sqlite3',
  'K = 3',
  'df = pd.DataFrame({"a": np.arange(1000), "b": np.arange(1000) * 2.5})',
  'def scale(x):',
  '    return x * K',
  'class Account:',
  '    def __init__(self, owner):',
  '        self.owner = owner',
  '    def hello(self):',
  '        return f"hi {self.owner}"',
  'acct = Account("ada")',
  'conn = sqlite3.connect(":memory:")',
  'it = (i for i in range(3))',
  'print("set")',
].join('\n');

const USE = 'print(int(df.b.sum()), scale(2), acct.hello(), type(acct) is Account, np.__name__, "conn" in globals())';

afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((s) => s.close()));
});

afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('durable threads', () => {
  it('after the idle TTL, the next run has its DataFrame, function, class instance and module alias back, and names what was not saved', async () => {
    const dataDir = newDataDir();
    // conn and it cannot be saved, so the container holds what would be lost: it waits for the unsaved idle time.
    const sandbox = await sandboxOn(dataDir, { idleTtlMs: 1500, unsavedIdleTtlMs: 1500 });
    expect((await sandbox.run('idle', { language: 'python', code: SETUP })).stdout).toBe('set\n');
    await savedMeta(dataDir, 'idle');
    const deadline = Date.now() + 15_000;
    while (sandbox.isLive('idle') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(sandbox.isLive('idle')).toBe(false);
    const after = await sandbox.run('idle', { language: 'python', code: USE });
    expect(after).toMatchObject({ status: 'ok', stdout: '1248750 6 hi ada True numpy False\n' });
    expect(after.stateReset).toBeUndefined();
    expect(after.stateRestored).toMatchObject({ variables: 8, reason: expect.stringMatching(/idle/) });
    expect(after.stateRestored?.notRestored).toEqual(['conn (sqlite3.Connection)', 'it (generator)']);
    // The state file is the bot's business: never one of the thread's files, never brought back as one.
    expect((await sandbox.listFiles('idle')).map((f) => f.path)).toEqual([]);
    await expect(sandbox.readFile('idle', '.threadlab/state/state.dill')).rejects.toThrow(/Unsafe file path/);
  });

  it(
    'a container whose variables are all saved goes after the short idle time; one holding what cannot be saved stays',
    anyRuntime,
    async () => {
      const dataDir = newDataDir();
      const sandbox = await sandboxOn(dataDir, { idleTtlMs: 1000, unsavedIdleTtlMs: 120_000 });
      await sandbox.run('all-saved', { language: 'python', code: 'x = [1, 2, 3]' });
      await sandbox.run('partly', { language: 'python', code: 'import sqlite3\nconn = sqlite3.connect(":memory:")' });
      await Promise.all([savedMeta(dataDir, 'all-saved'), savedMeta(dataDir, 'partly')]);
      const deadline = Date.now() + 15_000;
      while (sandbox.isLive('all-saved') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(sandbox.isLive('all-saved')).toBe(false);
      expect(sandbox.isLive('partly')).toBe(true); // its connection would be lost: it keeps THREADLAB_SANDBOX_UNSAVED_IDLE_TTL_MS
      const back = await sandbox.run('all-saved', { language: 'python', code: 'print(sum(x))' });
      expect(back).toMatchObject({ status: 'ok', stdout: '6\n' });
      expect(back.stateRestored).toMatchObject({ variables: 1, reason: expect.stringMatching(/idle for/) });
    },
  );

  it(
    'an evicted session (THREADLAB_SANDBOX_MAX_SESSIONS) gets its variables back when it runs again',
    anyRuntime,
    async () => {
      const dataDir = newDataDir();
      const sandbox = await sandboxOn(dataDir, { maxSessions: 1 });
      await sandbox.run('lru-a', { language: 'python', code: 'x = [1, 2, 3]\ny = {"k": "v"}' });
      await sandbox.run('lru-b', { language: 'python', code: 'z = 1' }); // evicts a, saving first
      const back = await sandbox.run('lru-a', { language: 'python', code: 'print(sum(x), y["k"])' });
      expect(back).toMatchObject({ status: 'ok', stdout: '6 v\n' });
      expect(back.stateRestored?.reason).toMatch(/evicted/);
    },
  );

  it(
    'close() (SIGTERM, daemon stop) saves what the last run changed, and a new process on the same data dir restores it',
    anyRuntime,
    async () => {
      const dataDir = newDataDir();
      const first = await sandboxOn(dataDir, { stateSaveDelayMs: 60_000 }); // only close() can save it
      await first.run('restart', { language: 'python', code: 'total = 41 + 1' });
      await first.close();
      const second = await sandboxOn(dataDir);
      const after = await second.run('restart', { language: 'python', code: 'print(total)' });
      expect(after).toMatchObject({ status: 'ok', stdout: '42\n' });
      expect(after.stateRestored?.reason).toMatch(/restarted or another worker/);
    },
  );

  it(
    'a worker that dies without closing leaves the state of its last completed run to the next one (shared data dir)',
    anyRuntime,
    async () => {
      const dataDir = newDataDir();
      const dying = await sandboxOn(dataDir);
      const key = 'failover';
      await dying.run(key, { language: 'python', code: 'step = 1' });
      const firstSave = await savedMeta(dataDir, key);
      await dying.run(key, { language: 'python', code: 'step = 2' });
      await savedMeta(dataDir, key, firstSave.digest);
      // SIGKILL: nothing of the dying process runs again; its containers are gone (the orphan sweep's job).
      open.splice(open.indexOf(dying), 1);
      for (const info of await containersOf(dying.instanceId))
        await docker.getContainer(info.Id).remove({ force: true });
      const taker = await sandboxOn(dataDir);
      const after = await taker.run(key, { language: 'python', code: 'print(step)' });
      expect(after.stdout).toBe('2\n');
      expect(after.stateRestored?.savedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    },
  );

  it(
    'a process that takes a thread over while its state is still being saved waits for the save to land',
    anyRuntime,
    async () => {
      const dataDir = newDataDir();
      const big = { stateSaveDelayMs: 60_000, memoryMb: 1024, dataMb: 400 };
      const first = await sandboxOn(dataDir, big);
      await first.run('handover', { language: 'python', code: 'blob = bytes(100 * 2**20)\nx = 41' });
      const closing = first.close(); // saves on the way out: about a second for 100 MB
      const second = await sandboxOn(dataDir, big);
      const after = await second.run('handover', { language: 'python', code: 'print(x + 1, len(blob))' });
      await closing;
      expect(after.stdout).toBe(`42 ${100 * 2 ** 20}\n`);
    },
  );

  it('does not write the same state twice', anyRuntime, async () => {
    const dataDir = newDataDir();
    const sandbox = await sandboxOn(dataDir, { maxSessions: 1 });
    await sandbox.run('same', { language: 'python', code: 'a = list(range(10))' });
    const meta = await savedMeta(dataDir, 'same');
    const file = join(dataDir, threadHash('same'), '.threadlab', 'state', 'state.json');
    const before = readFileSync(file, 'utf8');
    await sandbox.run('same', { language: 'python', code: 'print(len(a))' }); // reads only
    await sandbox.run('other', { language: 'python', code: 'b = 1' }); // evicts "same": a save on the way out
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(JSON.parse(before)).toMatchObject({ digest: meta.digest });
  });

  it('a state over THREADLAB_STATE_MAX_MB is not saved, and the user is told why', anyRuntime, async () => {
    const dataDir = newDataDir();
    const sandbox = await sandboxOn(dataDir, { stateMaxBytes: 1024 * 1024, maxSessions: 1 });
    await sandbox.run('big', { language: 'python', code: 'blob = bytes(5 * 2**20)' });
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the save after the run
    const next = await sandbox.run('big', { language: 'python', code: 'print(len(blob))' });
    expect(next.stateNotSaved?.reason).toMatch(/more than 1 MiB saved \(THREADLAB_STATE_MAX_MB\)/);
    expect(existsSync(join(dataDir, threadHash('big'), '.threadlab', 'state', 'state.json'))).toBe(false);
    await sandbox.run('evictor', { language: 'python', code: 'pass' });
    const after = await sandbox.run('big', { language: 'python', code: 'print("blob" in globals())' });
    expect(after.stdout).toBe('False\n');
    expect(after.stateRestored).toBeUndefined();
  });

  it('a state that does not fit in /mnt/data is not saved, and the user is told why', async () => {
    const dataDir = newDataDir();
    const sandbox = await sandboxOn(dataDir, { dataMb: 16 });
    await sandbox.run('full', {
      language: 'python',
      code: 'open("fill.bin", "wb").write(bytes(9 * 2**20))\nblob = bytes(9 * 2**20)',
    });
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the save after the run
    const next = await sandbox.run('full', { language: 'python', code: 'print(len(blob))' });
    expect(next.stdout).toBe(`${9 * 2 ** 20}\n`);
    expect(next.stateNotSaved?.reason).toMatch(/could not be written in \/mnt\/data .*No space left/);
  });

  it('/reset deletes the saved state with the files', anyRuntime, async () => {
    const dataDir = newDataDir();
    const sandbox = await sandboxOn(dataDir);
    await sandbox.run('reset', { language: 'python', code: 'secret = "s"' });
    await savedMeta(dataDir, 'reset');
    await sandbox.reset('reset');
    const after = await sandbox.run('reset', { language: 'python', code: 'print("secret" in globals())' });
    expect(after.stdout).toBe('False\n');
    expect(after.stateRestored).toBeUndefined();
  });

  it('a tampered or hostile state only fails to restore, in its own thread, with a message', async () => {
    const dataDir = newDataDir();
    const first = await sandboxOn(dataDir);
    // A value whose unpickling runs code: it can only run in a sandbox of this same thread.
    await first.run('hostile', {
      language: 'python',
      code: [
        'class Boom:',
        '    def __reduce__(self):',
        "        return (exec, (\"open('/mnt/data/ran-at-restore.txt', 'w').write('x'); raise SystemExit(3)\",))",
        'b = Boom()',
      ].join('\n'),
    });
    await savedMeta(dataDir, 'hostile');
    await first.run('tampered', { language: 'python', code: 'v = 1' });
    await savedMeta(dataDir, 'tampered');
    await first.close();
    // Bytes changed on the host after the save: the digest no longer matches, nothing is loaded.
    const tamperedFile = join(dataDir, threadHash('tampered'), '.threadlab', 'state', 'state.dill');
    const bytes = readFileSync(tamperedFile);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 2) ^ 0xff, bytes.length - 2);
    writeFileSync(tamperedFile, bytes);

    const second = await sandboxOn(dataDir);
    const hostile = await second.run('hostile', {
      language: 'python',
      code: 'import os\nprint("b" in globals(), os.path.exists("ran-at-restore.txt"))',
    });
    expect(hostile.status).toBe('ok');
    expect(hostile.stdout).toBe('False True\n');
    expect(hostile.stateReset?.reason).toMatch(/saved variables could not be restored: SystemExit/);
    const tampered = await second.run('tampered', { language: 'python', code: 'print("v" in globals())' });
    expect(tampered.stdout).toBe('False\n');
    expect(tampered.stateReset?.reason).toMatch(/could not be restored: .*does not match/);
    // The other thread saw none of it.
    const other = await second.run('bystander', { language: 'python', code: 'import os\nprint(os.listdir("."))' });
    expect(other.stdout).toBe('[]\n');
  });
});
