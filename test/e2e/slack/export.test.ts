import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { loadConfig } from '../../../src/config.js';
import type { Runtime } from '../../../src/core/runtime.js';
import { buildRuntime, createSlackAdapter } from '../../../src/main.js';
import { createDockerSandbox, type DockerSandbox } from '../../../sandbox/index.js';
import {
  appMention,
  BOT_USER_ID,
  CHANNEL_ID,
  FakeSlack,
  messageEvent,
  slashCommand,
} from '../../fakes/fake-slack/index.js';
import { validateNotebook } from '../../support/nbformat.js';
import { sandboxImage } from '../../support/sandbox-image.js';
import { SIGNING_SECRET, testLogger } from './support.js';
import { SlackTransport } from './transport.js';

const docker = new Docker();
const CODE = 'import numpy as np\nprint(np.arange(4).sum())';

describe('Slack: /interpreter export and `export` in a thread (real bolt client, Runtime and DockerSandbox)', () => {
  let fake: FakeSlack;
  let sandbox: DockerSandbox;
  let adapter: SlackAdapter;
  let runtime: Runtime;
  let send: SlackTransport;
  let dataDir: string;

  beforeAll(async () => {
    fake = await new FakeSlack().start();
    dataDir = mkdtempSync(join(tmpdir(), 'threadlab-slack-export-'));
    const config = loadConfig({
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_APP_TOKEN: fake.appToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      THREADLAB_SLACK_MODE: 'socket',
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_WEB_ENABLED: 'false',
      THREADLAB_SANDBOX_POOL_SIZE: '0',
    });
    sandbox = await createDockerSandbox({
      docker,
      image: await sandboxImage(),
      limits: { ...config.sandbox, timeoutMs: 30_000 },
      dataDir,
      logger: testLogger,
      instanceId: `test-slack-export-${process.pid}-${Date.now().toString(36)}`,
    });
    adapter = createSlackAdapter(config, testLogger, { port: 0, host: '127.0.0.1', progressIntervalMs: 200 });
    runtime = await buildRuntime(config, testLogger, { overrides: { sandbox, adapters: [adapter] } });
    await runtime.start();
    await fake.socket.waitForConnection();
    send = new SlackTransport(fake, adapter, 'socket');
  });

  afterAll(async () => {
    await runtime?.stop();
    await fake?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const uploadsIn = (ts: string, name: string) =>
    fake.state.uploads.filter((u) => u.completed && u.threadTs === ts && u.filename === name);

  it('answers with thread.ipynb and requirements.txt in the thread the link names, and for `export` typed in it', async () => {
    const mention = appMention({ text: `<@${BOT_USER_ID}> \`\`\`python\n${CODE}\n\`\`\`` });
    const root = mention.ts as string;
    await send.event(mention);
    await fake.waitFor(() => fake.state.messages.some((m) => m.thread_ts === root && m.text.includes('6')), {
      what: 'the run answer',
      timeoutMs: 120_000,
    });

    const noLink = await send.command(slashCommand({ text: 'export', responseUrl: fake.responseUrl() }));
    expect(noLink.body).toMatchObject({ response_type: 'ephemeral' });
    expect(JSON.stringify(noLink.body)).toContain('export <link to the thread>');
    const elsewhere = `https://threadlab.slack.com/archives/C0OTHER99/p${root.replace('.', '')}`;
    const other = await send.command(slashCommand({ text: `export <${elsewhere}>`, responseUrl: fake.responseUrl() }));
    expect(JSON.stringify(other.body)).toContain('another channel');

    const link = `https://threadlab.slack.com/archives/${CHANNEL_ID}/p${root.replace('.', '')}`;
    const ack = await send.command(slashCommand({ text: `export <${link}>`, responseUrl: fake.responseUrl() }));
    expect(JSON.stringify(ack.body ?? '')).not.toContain('ephemeral');
    const notebook = await fake.waitFor(() => uploadsIn(root, 'thread.ipynb')[0], {
      what: 'the notebook upload',
      timeoutMs: 60_000,
    });
    const requirements = await fake.waitFor(() => uploadsIn(root, 'requirements.txt')[0], { what: 'requirements' });
    expect(notebook.channelId).toBe(CHANNEL_ID);
    await validateNotebook(notebook.bytes!);
    const cells = JSON.parse(notebook.bytes!.toString()).cells as {
      cell_type: string;
      source: string;
      outputs?: unknown[];
    }[];
    expect(cells.filter((c) => c.cell_type === 'code').map((c) => [c.source, c.outputs])).toEqual([
      [CODE, [{ output_type: 'stream', name: 'stdout', text: '6\n' }]],
    ]);
    expect(requirements.bytes!.toString()).toMatch(/^numpy==\d+\.\d+/m);

    await send.event(messageEvent({ text: 'export', thread_ts: root }));
    await fake.waitFor(() => uploadsIn(root, 'thread.ipynb')[1], { what: 'the second notebook', timeoutMs: 60_000 });
  });
});
