import { randomUUID } from 'node:crypto';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../../cli/doctor.js';
import { pingRedis } from '../../../adapters/redis/connection.js';
import { loadConfig } from '../../../src/config/index.js';

describe('threadlab doctor against the real engine and Redis', () => {
  const docker = new Docker();

  it('reports a missing sandbox image and fails', async () => {
    const config = loadConfig({ THREADLAB_SANDBOX_IMAGE: `threadlab-sandbox:missing-${randomUUID().slice(0, 8)}` });
    const { ok, checks } = await runDoctor({ config, docker, pingRedis });
    expect(checks.find((c) => c.name === 'Docker engine')?.status).toBe('ok');
    expect(checks.find((c) => c.name === 'Sandbox image')).toMatchObject({ status: 'fail' });
    expect(ok).toBe(false);
  });

  it('reports every configured component healthy', async () => {
    const config = loadConfig({
      THREADLAB_SANDBOX_IMAGE: process.env.THREADLAB_TEST_SANDBOX_IMAGE!,
      REDIS_URL: process.env.THREADLAB_TEST_REDIS_URL!,
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    const { ok, checks } = await runDoctor({ config, docker, pingRedis });
    expect(checks.find((c) => c.name === 'Sandbox image')?.detail).toMatch(/present \(version [0-9a-f]{12}/);
    expect(checks.find((c) => c.name === 'Redis')?.detail).toContain('reachable');
    expect(ok).toBe(true);
  });

  it('says which runtime sandboxes get and why, and fails when runsc is asked for but missing', async () => {
    const runtimes = Object.keys(((await docker.info()) as { Runtimes?: object }).Runtimes ?? {});
    const auto = await runDoctor({ config: loadConfig({}), docker, pingRedis });
    const line = auto.checks.find((c) => c.name === 'Sandbox runtime')!;
    if (runtimes.includes('runsc')) {
      expect(line).toMatchObject({ status: 'ok' });
      expect(line.detail).toMatch(/^runsc: auto: .*registered/);
      const forced = await runDoctor({ config: loadConfig({ THREADLAB_SANDBOX_RUNTIME: 'runc' }), docker, pingRedis });
      expect(forced.checks.find((c) => c.name === 'Sandbox runtime')?.detail).toMatch(
        /^runc: THREADLAB_SANDBOX_RUNTIME=runc/,
      );
    } else {
      expect(line).toMatchObject({ status: 'warn' });
      expect(line.detail).toMatch(/^runc: auto: .*not registered/);
      const forced = await runDoctor({ config: loadConfig({ THREADLAB_SANDBOX_RUNTIME: 'runsc' }), docker, pingRedis });
      expect(forced.ok).toBe(false);
      expect(forced.checks.find((c) => c.name === 'Sandbox runtime')).toMatchObject({ status: 'fail' });
      expect(forced.checks.find((c) => c.name === 'Sandbox runtime')?.fix).toMatch(/ensure-docker\.sh/);
    }
  });
});
