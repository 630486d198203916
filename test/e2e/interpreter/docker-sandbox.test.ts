import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { createDockerSandbox, type DockerSandbox } from '../../../sandbox/index.js';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { call, input, logger, say, systemOf, toolMessagesOf, wire } from './helpers.js';
import { sandboxImage } from '../../support/sandbox-image.js';
import { sandboxRuntime } from '../../support/sandbox-runtime.js';

const docker = new Docker();
const instanceId = `test-interp-e2e-${process.pid}-${Date.now().toString(36)}`;
const thread = `cli:local:cli:interp-docker-${Date.now().toString(36)}`;
let sandbox: DockerSandbox;
let dataDir: string;
let server: FakeOpenAiServer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'threadlab-interp-e2e-'));
  const limits = {
    ...loadConfig({}).sandbox,
    memoryMb: 512,
    pids: 64,
    dataMb: 64,
    tmpMb: 16,
    timeoutMs: 30_000,
    poolSize: 0,
  };
  sandbox = await createDockerSandbox({
    docker,
    image: await sandboxImage(),
    limits,
    dataDir,
    logger,
    instanceId,
    runtime: sandboxRuntime(),
  });
  server = new FakeOpenAiServer();
  await server.start();
});

afterAll(async () => {
  await server?.stop();
  await sandbox?.close();
  const left = await docker.listContainers({ all: true, filters: { label: [`dev.threadlab.instance=${instanceId}`] } });
  await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('interpreter with the real openai client and the real Docker sandbox', () => {
  it('previews an upload, reads a real traceback, fixes the code and sees the chart', async () => {
    server.push(
      call('import pandas as pd\ndf = pd.read_csv("sales.csv")\nprint(df["revenue"].sum())'),
      call('print(df["Revenue"].sum())'),
      call(
        'import matplotlib.pyplot as plt\nplt.bar(df["month"], df["Revenue"])\nplt.title("Revenue by month")\nplt.show()',
      ),
      say('Total revenue is 60.5; the chart "Revenue by month" shows March highest.'),
    );
    const { interpreter } = wire(server, sandbox);
    const uploaded = await sandbox.putFile(
      thread,
      'sales.csv',
      Buffer.from('month,Revenue\nJan,10.5\nFeb,20\nMar,30\n'),
    );
    const result = await interpreter.handle(
      { ...input('total revenue and a chart', thread), uploaded: [uploaded] },
      {},
    );

    expect(result.outcome).toBe('answer');
    expect(result.runs.map((r) => r.result.status)).toEqual(['error', 'ok', 'ok']);
    const system = systemOf(server.requests[0]!.body);
    expect(system).toMatch(/Python 3\.\d+/);
    expect(system).toMatch(/pandas \d+\.\d+/);
    expect(system).toContain('/mnt/data/sales.csv');
    expect(system).toMatch(/3 rows; columns: month \(\w+\), Revenue \(float64\)/);
    const bug = toolMessagesOf(server.requests[1]!.body)[0]!.content;
    expect(bug).toContain('error: KeyError');
    expect(bug).toContain('traceback:');
    expect(toolMessagesOf(server.requests[2]!.body)[1]!.content).toContain('60.5');
    const last = server.requests[3]!.body.messages.at(-1) as {
      content: Array<{ type: string; image_url?: { url: string } }>;
    };
    expect(last.content.find((p) => p.type === 'image_url')?.image_url?.url).toMatch(/^data:image\/png;base64,iVBOR/);
  });
});
