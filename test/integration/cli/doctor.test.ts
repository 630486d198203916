import { randomUUID } from 'node:crypto';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../../src/cli/doctor.js';
import { pingRedis } from '../../../src/cli/infra.js';
import { loadConfig } from '../../../src/config.js';

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
});
