import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../../fakes/fake-discord/index.js';
import { validateNotebook } from '../../support/nbformat.js';
import { startDiscordBot, type DiscordBotRig } from './bot-rig.js';

describe('Discord: /export through the real discord.js REST client, Bot and DockerSandbox', () => {
  let fake: FakeDiscord;

  let rig: DiscordBotRig | undefined;
  beforeAll(async () => {
    rig = await startDiscordBot('export');
    ({ fake } = rig);
  });

  afterAll(async () => {
    await rig?.stop();
  });

  const command = (name: string, options: { name: string; type: number; value: string }[] = []) =>
    fake.slashCommand({ name, options });

  it('answers /export with thread.ipynb and requirements.txt of the channel session, the failed run left out', async () => {
    const code = 'import numpy as np\nprint(np.arange(4).sum())';
    for (const run of [code, 'undefined_name']) {
      const interaction = command('run', [{ name: 'code', type: 3, value: run }]);
      await fake.waitForRequest(
        (r) =>
          r.path.startsWith(`/webhooks/${fake.applicationId}/${interaction.token}`) &&
          r.json?.components !== undefined &&
          /6|NameError/.test(String(r.json?.content ?? '')),
        60_000,
      );
    }
    const exported = command('export');
    const withFiles = await fake.waitForRequest(
      (r) =>
        r.path.startsWith(`/webhooks/${fake.applicationId}/${exported.token}`) &&
        r.files.some((f) => f.filename === 'thread.ipynb'),
      60_000,
    );
    const notebook = withFiles.files.find((f) => f.filename === 'thread.ipynb')!;
    const requirements = withFiles.files.find((f) => f.filename === 'requirements.txt');
    expect(requirements?.data.toString()).toMatch(/^numpy==\d+\.\d+/m);
    await validateNotebook(notebook.data);
    const cells = JSON.parse(notebook.data.toString()).cells as {
      cell_type: string;
      source: string;
      outputs: unknown[];
    }[];
    expect(cells.filter((c) => c.cell_type === 'code').map((c) => [c.source, c.outputs])).toEqual([
      [code, [{ output_type: 'stream', name: 'stdout', text: '6\n' }]],
    ]);
  });
});
