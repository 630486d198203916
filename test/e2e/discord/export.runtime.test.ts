import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscordAdapter } from '../../../adapters/discord/index.js';
import { loadConfig } from '../../../src/config.js';
import type { Runtime } from '../../../src/core/runtime.js';
import { buildRuntime, createDiscordAdapter } from '../../../src/main.js';
import { createDockerSandbox, type DockerSandbox } from '../../../sandbox/index.js';
import { FakeDiscord, payloads } from '../../fakes/fake-discord/index.js';
import { validateNotebook } from '../../support/nbformat.js';
import { sandboxImage } from '../../support/sandbox-image.js';
import { FAKE_TOKEN, silentLogger } from './harness.js';

const docker = new Docker();

describe('Discord: /export through the real discord.js REST client, Runtime and DockerSandbox', () => {
  let fake: FakeDiscord;
  let sandbox: DockerSandbox;
  let adapter: DiscordAdapter;
  let runtime: Runtime;
  let dataDir: string;
  const logger = silentLogger();

  beforeAll(async () => {
    fake = new FakeDiscord();
    await fake.start();
    dataDir = mkdtempSync(join(tmpdir(), 'threadlab-discord-export-'));
    const config = loadConfig({
      DISCORD_TOKEN: FAKE_TOKEN,
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_API_URL: fake.apiUrl,
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_WEB_ENABLED: 'false',
      THREADLAB_SANDBOX_POOL_SIZE: '0',
    });
    sandbox = await createDockerSandbox({
      docker,
      image: await sandboxImage(),
      limits: { ...config.sandbox, timeoutMs: 30_000 },
      dataDir,
      logger,
      instanceId: `test-discord-export-${process.pid}-${Date.now().toString(36)}`,
    });
    adapter = createDiscordAdapter(config, { logger });
    runtime = await buildRuntime(config, logger, { overrides: { sandbox, adapters: [adapter] } });
    await runtime.start();
  });

  afterAll(async () => {
    await runtime?.stop();
    await fake?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const command = (name: string, options: { name: string; type: number; value: string }[] = []) =>
    fake.interaction(
      payloads.slashCommand({
        applicationId: fake.applicationId,
        guildId: fake.guildId,
        channel: { id: fake.textChannelId, type: 0 },
        user: fake.human,
        name,
        options,
      }),
    );

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
