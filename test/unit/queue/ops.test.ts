import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { createMetrics } from '../../../src/ops/metrics.js';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server.js';
import { InProcessJobQueue } from '../../../src/queue/in-process-queue.js';
import { testMessage, waitFor } from '../../contract/messages.js';

const servers: OpsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('metrics and the ops server', () => {
  it('exposes queue, pool, LLM and error metrics in Prometheus text', async () => {
    const metrics = createMetrics({ defaultMetrics: false, role: 'worker' });
    const queue = new InProcessJobQueue({ logger: createLogger({ level: 'silent' }), observer: metrics.queue });
    let decide: () => void = () => undefined;
    await queue.process(async (job, { park }) => {
      if (job.message.text === 'parks') await park?.(() => new Promise<void>((resolve) => (decide = resolve)));
    });
    await queue.enqueue(testMessage({ thread: 'p', text: 'parks' }));
    const parkedGauge = () => metrics.registry.getSingleMetricAsString('threadlab_queue_parked');
    await waitFor(async () => (await parkedGauge()).includes('threadlab_queue_parked{role="worker"} 1'));
    decide();
    await waitFor(async () => (await parkedGauge()).includes('threadlab_queue_parked{role="worker"} 0'));
    await queue.enqueue(testMessage({ thread: 'm' }));
    await waitFor(async () =>
      (await metrics.registry.getSingleMetricAsString('threadlab_job_duration_seconds')).includes(
        '_count{role="worker",outcome="ok"} 2',
      ),
    );
    metrics.pool.size(3);
    metrics.pool.hit();
    metrics.pool.hit();
    metrics.pool.miss();
    metrics.llm.tokens({ prompt: 120, completion: 30 });
    metrics.llm.behaviour('loop_stopped', 'qwen3:8b');
    metrics.error('sandbox_timeout');
    metrics.feedback('bad', 'qwen3:8b');
    metrics.feedback('bad', 'qwen3:8b');
    const text = await metrics.registry.metrics();
    expect(text).toContain('threadlab_queue_depth{role="worker"} 0');
    expect(text).toContain('threadlab_queue_wait_seconds_count{role="worker"} 2');
    expect(text).toContain('threadlab_sandbox_pool_size{role="worker"} 3');
    expect(text).toContain('threadlab_sandbox_pool_requests_total{result="hit",role="worker"} 2');
    expect(text).toContain('threadlab_llm_tokens_total{kind="prompt",role="worker"} 120');
    expect(text).toContain('threadlab_errors_total{code="sandbox_timeout",role="worker"} 1');
    expect(text).toContain('threadlab_model_behaviour_total{kind="loop_stopped",model="qwen3:8b",role="worker"} 1');
    expect(text).toContain('threadlab_feedback_total{verdict="bad",model="qwen3:8b",role="worker"} 2');
    await queue.close();
  });

  it('serves /metrics and /healthz with 200 or 503', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    let healthy = true;
    const server = await startOpsServer({
      port: 0,
      registry: metrics.registry,
      health: async () => ({
        ok: healthy,
        checks: { redis: { ok: healthy, detail: healthy ? undefined : 'ECONNREFUSED' } },
      }),
    });
    servers.push(server);
    const m = await fetch(`${server.url}/metrics`);
    expect(m.status).toBe(200);
    expect(m.headers.get('content-type')).toContain('text/plain');
    expect(await m.text()).toContain('# TYPE threadlab_queue_depth gauge');
    const ok = await fetch(`${server.url}/healthz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, checks: { redis: { ok: true } } });
    healthy = false;
    const bad = await fetch(`${server.url}/healthz`);
    expect(bad.status).toBe(503);
    expect(await bad.json()).toMatchObject({ ok: false, checks: { redis: { ok: false, detail: 'ECONNREFUSED' } } });
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
  });

  it('reports a hanging or throwing health check as unhealthy', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const hanging = await startOpsServer({
      port: 0,
      registry: metrics.registry,
      health: () => new Promise(() => {}),
      healthTimeoutMs: 100,
    });
    const throwing = await startOpsServer({
      port: 0,
      registry: metrics.registry,
      health: async () => {
        throw new Error('docker down');
      },
    });
    servers.push(hanging, throwing);
    const h = await fetch(`${hanging.url}/healthz`);
    expect(h.status).toBe(503);
    expect(JSON.stringify(await h.json())).toContain('longer than 100 ms');
    const t = await fetch(`${throwing.url}/healthz`);
    expect(t.status).toBe(503);
    expect(JSON.stringify(await t.json())).toContain('docker down');
  });
});
