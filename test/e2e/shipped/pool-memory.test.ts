/**
 * The warm pool's memory through the product as shipped: a `threadlab start` process that saw a burst of new
 * web threads is stopped (SIGTERM) and started again on the same THREADLAB_DATA_DIR, and its pool refills to
 * what it had learned, not to THREADLAB_SANDBOX_POOL_SIZE.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolDemandFile } from '../../../sandbox/pool-demand-file.js';
import { fetchMetrics, metricValue, stopProcess, waitUntil } from '../roles/processes.js';
import { ShippedBot } from './shipped-bot.js';
import { WebClientForTests } from './web-client.js';

const bot = new ShippedBot({ web: true });
const web = new WebClientForTests(() => bot.webUrl);
/** One web user stands for three people starting threads at once. */
const env = {
  THREADLAB_SANDBOX_POOL_SIZE: '1',
  THREADLAB_SANDBOX_POOL_MAX: '3',
  THREADLAB_SANDBOX_RUNTIME: 'runc',
  THREADLAB_USER_MAX_CONCURRENT: '3',
};

beforeAll(async () => {
  await bot.start(env);
}, 180_000);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

const poolSize = async () => metricValue(await fetchMetrics(bot.process), 'threadlab_sandbox_pool_size') ?? 0;

describe('threadlab start restarted on the same data dir', () => {
  it('refills its warm pool to the demand it learned before the stop', async () => {
    const threads = await Promise.all([1, 2, 3].map(() => web.createThread()));
    await Promise.all(threads.map((id) => web.post(id, { text: '```python\nprint(6 * 7)\n```' })));
    for (const id of threads) expect((await web.waitForAnswer(id, 120_000)).text).toContain('42');
    await stopProcess(bot.process, 'SIGTERM');
    expect(await bot.process.exited).toMatchObject({ code: 0 });
    const saved = JSON.parse(readFileSync(poolDemandFile(bot.dataDir), 'utf8')) as { sessionStartsMs: number[] };
    expect(saved.sessionStartsMs).toHaveLength(3);

    await bot.spawn(env);
    await bot.process.ready(120_000);
    await waitUntil(async () => (await poolSize()) === 3, { timeoutMs: 90_000, what: 'a pool of 3', intervalMs: 250 });
    // It stays at what it learned: no more than POOL_MAX, and not back at POOL_SIZE.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await poolSize()).toBe(3);
  });
});
