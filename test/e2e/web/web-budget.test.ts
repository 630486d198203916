import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { loadConfig } from '../../../src/config.js';
import type { Runtime } from '../../../src/core/runtime.js';
import { createLogger } from '../../../src/logger.js';
import { buildRuntime, createSandbox } from '../../../src/main.js';

// The web chat's /usage and a daily run-time budget over its HTTP API, on the real Runtime and Docker sandbox.
const logger = createLogger({ level: process.env.THREADLAB_TEST_LOG ?? 'silent' });

interface WebMessage {
  role: string;
  command?: string;
  text: string;
}

describe('web chat: daily run-time budget and /usage', () => {
  let dataDir: string;
  let adapter: WebChatAdapter;
  let runtime: Runtime;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'threadlab-web-budget-'));
    const config = loadConfig({
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_SANDBOX_IMAGE: process.env.THREADLAB_TEST_SANDBOX_IMAGE,
      THREADLAB_SANDBOX_POOL_SIZE: '0',
      THREADLAB_WEB_PORT: '0',
      THREADLAB_BUDGET_USER_DAILY_RUN_SECONDS: '1',
    });
    adapter = new WebChatAdapter({ port: 0, dataDir, logger, maxUploadBytes: config.sandbox.maxFileBytes });
    const sandbox = await createSandbox(config, logger, { instanceId: `web-budget-${randomBytes(4).toString('hex')}` });
    runtime = await buildRuntime(config, logger, { overrides: { sandbox, adapters: [adapter] } });
    await runtime.start();
  });

  afterAll(async () => {
    await runtime?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const post = async (path: string, body?: unknown) => {
    const res = await fetch(`${adapter.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    return (await res.json()) as { thread: { id: string } };
  };
  const messages = async (id: string): Promise<WebMessage[]> =>
    ((await (await fetch(`${adapter.url}/api/threads/${id}/messages`)).json()) as { messages: WebMessage[] }).messages;

  it('tells the user at 80 %, shows what is left with /usage, and refuses the next run with the reset time', async () => {
    const { thread } = await post('/api/threads');
    const say = async (text: string, count: number) => {
      await post(`/api/threads/${thread.id}/messages`, { text });
      await expect.poll(async () => (await messages(thread.id)).length, { timeout: 90_000, interval: 200 }).toBe(count);
      return (await messages(thread.id))[count - 1]!;
    };
    const ran = await say('```python\nimport time\ntime.sleep(1.1)\nprint("slept")\n```', 2);
    expect(ran.text).toContain('slept');
    expect(ran.text).toMatch(
      /You have used \d+ % of your daily code run-time budget \([\d.]+ s of 1 s\)\. It resets at 00:00 UTC/,
    );

    const usage = await say('/usage', 4);
    expect((await messages(thread.id))[2]).toMatchObject({ role: 'user', command: 'usage' });
    expect(usage.text).toMatch(/You, run time: 1\.\d s of 1 s used \(100 %\), 0 s left/);

    const refused = await say('```python\nprint("must not run")\n```', 6);
    expect(refused.text).toMatch(
      /You have used your daily code run-time budget \([\d.]+ s of 1 s\), so this message was not run\. It resets at 00:00 UTC \(\d{4}-\d\d-\d\d\), in \d/,
    );
    expect(refused.text).not.toContain('must not run');
  }, 120_000);
});
