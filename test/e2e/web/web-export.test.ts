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
import { validateNotebook } from '../../support/nbformat.js';

// The web chat's /export over its HTTP API, on the real Runtime and Docker sandbox.
const logger = createLogger({ level: process.env.THREADLAB_TEST_LOG ?? 'silent' });

interface WebMessage {
  role: string;
  command?: string;
  text: string;
  files?: { name: string; url: string }[];
}

describe('web chat: /export', () => {
  let dataDir: string;
  let adapter: WebChatAdapter;
  let runtime: Runtime;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'threadlab-web-export-'));
    const config = loadConfig({
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_SANDBOX_IMAGE: process.env.THREADLAB_TEST_SANDBOX_IMAGE,
      THREADLAB_SANDBOX_POOL_SIZE: '0',
      THREADLAB_WEB_PORT: '0',
    });
    adapter = new WebChatAdapter({ port: 0, dataDir, logger, maxUploadBytes: config.sandbox.maxFileBytes });
    const sandbox = await createSandbox(config, logger, { instanceId: `web-export-${randomBytes(4).toString('hex')}` });
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

  it('answers /export with a notebook and requirements.txt to download, the failed run left out', async () => {
    const { thread } = await post('/api/threads');
    const say = async (text: string, count: number) => {
      await post(`/api/threads/${thread.id}/messages`, { text });
      await expect.poll(async () => (await messages(thread.id)).length, { timeout: 90_000, interval: 200 }).toBe(count);
    };
    await say('```python\nimport pandas as pd\nprint(pd.Series([1, 2, 3]).sum())\n```', 2);
    await say('```python\nraise ValueError("nope")\n```', 4);
    await say('/export', 6);
    const all = await messages(thread.id);
    expect(all[4]).toMatchObject({ role: 'user', command: 'export' });
    const reply = all[5]!;
    expect(reply.files?.map((f) => f.name)).toEqual(['thread.ipynb', 'requirements.txt']);
    const notebook = Buffer.from(await (await fetch(`${adapter.url}${reply.files![0]!.url}`)).arrayBuffer());
    await validateNotebook(notebook);
    const cells = JSON.parse(notebook.toString()).cells as {
      cell_type: string;
      source: string;
      outputs: unknown[];
    }[];
    expect(cells.filter((c) => c.cell_type === 'code').map((c) => [c.source, c.outputs])).toEqual([
      [
        'import pandas as pd\nprint(pd.Series([1, 2, 3]).sum())',
        [{ output_type: 'stream', name: 'stdout', text: '6\n' }],
      ],
    ]);
    const requirements = await (await fetch(`${adapter.url}${reply.files![1]!.url}`)).text();
    expect(requirements).toMatch(/^pandas==\d+\.\d+/m);
  });
});
