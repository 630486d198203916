import { hostname } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContainerSpec } from '../../../sandbox/container-spec.js';
import { removeOrphans } from '../../../sandbox/orphans.js';
import { threadHash } from '../../../src/domain/thread-key.js';
import Docker from 'dockerode';
import { DockerSandbox } from '../../../sandbox/docker-sandbox.js';
import { containersOf, docker, logger, makeSandbox, sandboxImage, testLimits, type TestSandbox } from './helpers.js';
import { waitUntil } from '../../e2e/roles/processes.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await makeSandbox('life', { poolSize: 2, maxSessions: 3 });
});
afterAll(async () => {
  await t?.close();
});

/** The container id as seen from inside (cgroup v1 paths carry it). */
const containerIdOf = async (key: string) => {
  const result = await t.sandbox.run(key, {
    language: 'bash',
    code: 'grep -o -m1 "[0-9a-f]\\{64\\}" /proc/self/cgroup',
  });
  return result.stdout.trim();
};

describe('sandbox lifecycle', () => {
  it('serves a new session from the warm pool, never twice, and refills', async () => {
    await t.sandbox.pool.whenFull();
    const pooled = (await containersOf(t.instanceId)).filter((c) => c.Labels['dev.threadlab.session'] === 'pool');
    expect(pooled).toHaveLength(2);
    const [a, b] = await Promise.all([
      t.sandbox.run('pool-a', { language: 'python', code: 'import pandas as pd\nprint(pd.__version__)' }),
      t.sandbox.run('pool-b', { language: 'python', code: 'print(1)' }),
    ]);
    expect(a.status).toBe('ok');
    expect(b.status).toBe('ok');
    const ids = [await containerIdOf('pool-a'), await containerIdOf('pool-b')];
    expect(new Set(ids).size).toBe(2);
    // Both ran in the containers the pool had started before: no session waited for a container start
    // (how long that takes is the sandbox bench's figure, not a bound a loaded machine can keep).
    expect(pooled.map((c) => c.Id).sort()).toEqual([...ids].sort());
    await t.sandbox.pool.whenFull();
    // Labels cannot change, so a taken container keeps its pool label; its name carries the session.
    const all = await containersOf(t.instanceId);
    for (const id of ids)
      expect(all.find((c) => c.Id === id)?.Names[0]).toMatch(/threadlab-test-life-.*-[0-9a-f]{24}-/);
    const refilled = all.filter((c) => c.Labels['dev.threadlab.session'] === 'pool' && !ids.includes(c.Id));
    expect(refilled).toHaveLength(2);
  });

  it('evicts the least recently used session beyond the maximum, keeping its files', async () => {
    await t.sandbox.run('pool-a', { language: 'python', code: 'open("a.txt","w").write("A")' });
    const evicted = await containerIdOf('pool-a');
    await t.sandbox.run('pool-b', { language: 'python', code: 'x = 1' });
    await t.sandbox.run('lru-c', { language: 'python', code: 'x = 1' });
    expect(t.sandbox.liveSessions()).toBe(3);
    await t.sandbox.run('lru-d', { language: 'python', code: 'x = 1' });
    expect(t.sandbox.liveSessions()).toBe(3);
    expect(t.sandbox.isLive('pool-a')).toBe(false);
    // Its container is removed once evictions stop (sandbox/deferred-removals.ts), not left behind.
    await waitUntil(async () => !(await containersOf(t.instanceId)).some((c) => c.Id === evicted), {
      timeoutMs: 20_000,
      what: "the evicted session's container to be removed",
      intervalMs: 200,
    });
    const back = await t.sandbox.run('pool-a', { language: 'python', code: 'print(open("a.txt").read())' });
    expect(back.stdout).toBe('A\n');
    // Its variables were saved before it went (durable threads): they come back, and the result says why.
    expect(back.stateReset).toBeUndefined();
    expect(back.stateRestored?.reason).toMatch(/evicted/);
  });

  it('reaps idle sessions and restores their files on the next run', async () => {
    const idle = await makeSandbox('life-idle', { idleTtlMs: 1000 });
    try {
      await idle.sandbox.run('idle', { language: 'python', code: 'open("i.txt","w").write("I")' });
      // Reaped once idle for 1 s: the session within the same 2.5 s as before. Its container's removal is
      // then the engine's work, which a busy engine (other test files beside this one) takes seconds over.
      await waitUntil(() => !idle.sandbox.isLive('idle'), {
        timeoutMs: 2_500,
        what: 'the idle session to be reaped',
        intervalMs: 100,
      }).catch(() => undefined); // the assertions below say what is still there
      expect(idle.sandbox.isLive('idle')).toBe(false);
      await waitUntil(async () => (await containersOf(idle.instanceId)).length === 0, {
        timeoutMs: 15_000,
        what: "the reaped session's container to be removed",
        intervalMs: 100,
      }).catch(() => undefined);
      expect(await containersOf(idle.instanceId)).toEqual([]);
      const back = await idle.sandbox.run('idle', { language: 'bash', code: 'cat i.txt' });
      expect(back.stdout).toBe('I');
      expect(back.stateReset).toBeUndefined();
      expect(back.stateRestored?.reason).toMatch(/idle/);
    } finally {
      await idle.close();
    }
  });

  it('reset forgets files and variables', async () => {
    await t.sandbox.run('reset', { language: 'python', code: 'open("r.txt","w").write("R")\nv = 1' });
    expect(existsSync(join(t.dataDir, threadHash('reset'), 'r.txt'))).toBe(true);
    await t.sandbox.reset('reset');
    expect(t.sandbox.isLive('reset')).toBe(false);
    expect(existsSync(join(t.dataDir, threadHash('reset')))).toBe(false);
    const after = await t.sandbox.run('reset', { language: 'bash', code: 'ls | wc -l' });
    expect(after.stdout.trim()).toBe('0');
    expect(after.stateReset).toBeUndefined();
  });

  it('removes containers orphaned by dead instances and keeps those of live ones', async () => {
    const image = await sandboxImage();
    const make = (instanceId: string, ownerPid: number) =>
      docker.createContainer(
        buildContainerSpec({
          image,
          limits: testLimits(),
          name: `threadlab-orphan-test-${instanceId}`,
          instanceId,
          session: 'pool',
          hostname: hostname(),
          ownerPid,
        }),
      );
    const suffix = `${process.pid}-${Date.now().toString(36)}`;
    const dead = await make(`dead-${suffix}`, 2 ** 22 + 17); // beyond pid_max: never alive
    const sibling = await make(`alive-${suffix}`, process.pid);
    try {
      const removed = await removeOrphans(docker, { olderThanInstance: t.instanceId });
      expect(removed).toContain(`threadlab-orphan-test-dead-${suffix}`);
      expect(removed).not.toContain(`threadlab-orphan-test-alive-${suffix}`);
      await expect(dead.inspect()).rejects.toMatchObject({ statusCode: 404 });
      await expect(sibling.inspect()).resolves.toBeTruthy();
      expect((await containersOf(t.instanceId)).length).toBeGreaterThan(0);
    } finally {
      await dead.remove({ force: true }).catch(() => undefined);
      await sibling.remove({ force: true }).catch(() => undefined);
    }
  });

  it('a running sandbox also sweeps the containers of a process that died after it started', async () => {
    const image = await sandboxImage();
    const sweeper = await makeSandbox('life-sweep', {}, undefined, { orphanSweepMs: 300 });
    const suffix = `${process.pid}-${Date.now().toString(36)}`;
    const dead = await docker.createContainer(
      buildContainerSpec({
        image,
        limits: testLimits(),
        name: `threadlab-orphan-late-${suffix}`,
        instanceId: `late-${suffix}`,
        session: 'pool',
        hostname: hostname(),
        ownerPid: 2 ** 22 + 19, // beyond pid_max: never alive
      }),
    );
    try {
      const deadline = Date.now() + 10_000;
      let gone = false;
      while (!gone && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        gone = await dead.inspect().then(
          () => false,
          (err: { statusCode?: number }) => err.statusCode === 404,
        );
      }
      expect(gone).toBe(true);
    } finally {
      await dead.remove({ force: true }).catch(() => undefined);
      await sweeper.close();
    }
  });

  it('fails with typed errors when the image is missing or the engine unreachable', async () => {
    await expect(makeSandbox('life-noimage', {}, 'threadlab-sandbox:does-not-exist')).rejects.toMatchObject({
      code: 'sandbox_image_missing',
      message: expect.stringContaining('threadlab sandbox build'),
    });
    const nowhere = new DockerSandbox({
      docker: new Docker({ socketPath: '/nonexistent/docker.sock' }),
      image: 'x',
      limits: testLimits(),
      dataDir: '/tmp/unused',
      logger,
    });
    await expect(nowhere.run('k', { language: 'python', code: '1' })).rejects.toMatchObject({
      code: 'docker_unreachable',
    });
  });

  it('close() removes every container of the instance', async () => {
    const other = await makeSandbox('life-close', { poolSize: 1 });
    await other.sandbox.run('k', { language: 'python', code: '1' });
    await other.sandbox.pool.whenFull();
    expect((await containersOf(other.instanceId)).length).toBe(2);
    await other.close();
    expect(await containersOf(other.instanceId)).toEqual([]);
  });
});
