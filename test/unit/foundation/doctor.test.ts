import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { runDoctor, formatChecks } from '../../../cli/doctor.js';
import { loadConfig } from '../../../src/config/index.js';

describe('threadlab doctor', () => {
  it('reports a missing engine with how to fix it, and fails', async () => {
    const docker = new Docker({ socketPath: '/nonexistent/threadlab-test.sock' });
    const config = loadConfig({ DOCKER_HOST: 'unix:///nonexistent/threadlab-test.sock' });
    const { ok, checks } = await runDoctor({ config, docker, pingRedis: async () => {} });
    expect(ok).toBe(false);
    const engine = checks.find((c) => c.name === 'Docker engine')!;
    expect(engine.status).toBe('fail');
    expect(engine.detail).toContain('unix:///nonexistent/threadlab-test.sock');
    expect(engine.fix).toMatch(/ensure-docker|DOCKER_HOST/);
    expect(formatChecks(checks)).toMatch(/✘ Docker engine/);
  });

  it('reports an invalid configuration instead of crashing', async () => {
    let error: Error | undefined;
    try {
      loadConfig({ THREADLAB_SANDBOX_CPUS: 'many' });
    } catch (err) {
      error = err as Error;
    }
    const { ok, checks } = await runDoctor({ config: error!, docker: new Docker(), pingRedis: async () => {} });
    expect(ok).toBe(false);
    expect(checks[0]!.detail).toContain('THREADLAB_SANDBOX_CPUS');
  });

  it('fails when Redis is configured but does not answer', async () => {
    const docker = new Docker({ socketPath: '/nonexistent/x.sock' });
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:1' });
    const { checks } = await runDoctor({
      config,
      docker,
      pingRedis: async () => Promise.reject(new Error('connect ECONNREFUSED')),
    });
    expect(checks.find((c) => c.name === 'Redis')).toMatchObject({
      status: 'fail',
      fix: 'start Redis or correct REDIS_URL',
    });
  });
});
