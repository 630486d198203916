import { startWebBot, type WebBotRig } from './web-bot-rig.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { validateNotebook } from '../../support/nbformat.js';

// The web chat's /export over its HTTP API, on the real core (Bot) and Docker sandbox.

interface WebMessage {
  role: string;
  command?: string;
  text: string;
  files?: { name: string; url: string }[];
}

describe('web chat: /export', () => {
  let rig: WebBotRig;
  let adapter: WebChatAdapter;

  beforeAll(async () => {
    rig = await startWebBot('export');
    adapter = rig.adapter;
  });

  afterAll(async () => {
    expect(await rig?.stop()).toEqual([]);
  });

  const post = (path: string, body?: unknown) => rig.post(path, body);
  const messages = (id: string) => rig.messages<WebMessage>(id);

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
