/**
 * Links to the run's files, the ChatGPT way (issue 37, item 5), through the product as shipped: `threadlab chat
 * --out` and `threadlab start`'s web chat, with the real Docker sandbox and the real `openai` client against a fake
 * model that draws a chart, writes a CSV and links both with `sandbox:/mnt/data/…` (and a file it never made).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { AGAIN_QUESTION, LINKS_QUESTION, sandboxLinksModel } from '../../fakes/sandbox-links-model.js';
import { cliEnv, runCli } from '../../integration/cli/cli-process.js';
import { removeContainersOf } from '../roles/containers.js';
import { stopProcess, type ThreadlabProcess } from '../roles/processes.js';
import { startWebThreadlab } from './web-threadlab.js';
import type { WebMessage } from '../../../adapters/web/types.js';

const MISSING = 'residuals (`residuals.png`, not found: no run made this file)';

const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-links-'));
const server = new FakeOpenAiServer({ fallback: sandboxLinksModel });
let env: Record<string, string | undefined>;

beforeAll(async () => {
  await server.start();
  env = cliEnv(dataDir, {
    OPENAI_BASE_URL: server.baseUrl,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_MODEL: 'gpt-4o-mini',
    THREADLAB_SANDBOX_RUNTIME: 'runc',
  });
});

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env, cwd: dataDir }).catch(() => undefined);
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.concurrent('links to sandbox files, through threadlab chat and threadlab start', () => {
  it('threadlab chat --out: the links name the files written once, the missing one is marked', async () => {
    const out = join(dataDir, 'out');
    const run = await runCli(['chat', '--thread', 'links', '--json', '--out', out, LINKS_QUESTION], {
      env,
      cwd: dataDir,
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const reply = JSON.parse(run.stdout);
    expect(reply.text).toContain('chart (`chart.png`, attached)');
    expect(reply.text).toContain('You can Download (`summary.csv`, attached) the numbers.');
    expect(reply.text).toContain(MISSING);
    expect(reply.text).not.toContain('sandbox:');
    expect(reply.refused).toEqual([]);
    expect(reply.images).toEqual([join(out, 'chart.png')]);
    expect(reply.files).toEqual([join(out, 'summary.csv')]);
    expect(readdirSync(out).sort()).toEqual(['chart.png', 'summary.csv']);
    expect(readFileSync(join(out, 'summary.csv'), 'utf8')).toBe('x,y\n1,2\n2,4\n3,3\n');
  }, 180_000);

  it('threadlab start, web chat: the chart inline, the CSV a download link, an earlier chart attached again', async () => {
    let p: ThreadlabProcess | undefined;
    try {
      const started = await startWebThreadlab({
        name: 'start-sandbox-links',
        env: env as Record<string, string>,
        dataDir,
      });
      p = started.process;
      const { web } = started;
      const thread = await web.createThread();
      await web.post(thread, { text: LINKS_QUESTION });
      const reply = (await web.nthAnswer(thread, 0, 120_000)) as unknown as WebMessage;
      expect(reply.images!.map((i) => [i.name, i.inline])).toEqual([['chart.png', true]]);
      expect(reply.files!.map((f) => f.name)).toEqual(['summary.csv']);
      const [image] = reply.images!;
      const [csv] = reply.files!;
      expect(reply.text).toContain(`Here is the chart:\n\n![chart](${image!.url})`);
      expect(reply.text).toContain(`You can [Download (summary.csv)](${csv!.url}?download=1) the numbers.`);
      expect(reply.text).toContain(MISSING);
      expect(reply.text).not.toContain('sandbox:');
      expect((await web.download(image!.url)).subarray(1, 4).toString()).toBe('PNG');
      expect((await web.download(`${csv!.url}?download=1`)).toString()).toBe('x,y\n1,2\n2,4\n3,3\n');

      // The next message links the chart of the earlier one: no run made it now, but it is in /mnt/data.
      await web.post(thread, { text: AGAIN_QUESTION });
      const again = (await web.nthAnswer(thread, 1, 120_000)) as unknown as WebMessage;
      expect(again.images!.map((i) => [i.name, i.inline])).toEqual([['chart.png', true]]);
      expect(again.text).toBe(`Here it is again: ![the chart](${again.images![0]!.url})`);
      expect(await web.download(again.images![0]!.url)).toEqual(await web.download(image!.url));
    } finally {
      if (p) {
        await stopProcess(p, 'SIGTERM');
        await removeContainersOf([p.pid]).catch(() => undefined);
      }
    }
  }, 300_000);
});
