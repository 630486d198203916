/**
 * Makes the README's picture: a PNG of the web chat answering a question about an uploaded CSV with a chart.
 *
 *   npx tsx scripts/readme-screenshot.ts [--out docs/images/web-chat-chart.png]
 *
 * The product is the real one: `threadlab start` (bin/threadlab.js from the sources, the web chat only, runc) with
 * its Docker sandbox; only the model is the local fake of test/fakes/fake-openai-server.ts, which writes the
 * chart code once and then the answer, so the picture shows what a real model's turn looks like without a key.
 * Debian's chromium (through playwright-core, as test/e2e/web/browser.ts launches it) takes the screenshot. Every
 * address is 127.0.0.1. Needs Docker and the sandbox image (`threadlab sandbox build`), and Debian's
 * fonts-noto-color-emoji for the answer's 👍/👎 buttons (without it they are empty boxes); takes about a minute.
 */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  FakeOpenAiServer,
  fakeRunCode,
  fakeSay,
  type ChatRequestBody,
  type FakeReply,
} from '../test/fakes/fake-openai-server.js';
import { removeContainersOf } from '../test/e2e/roles/containers.js';
import { spawnThreadlab, stopProcess } from '../test/e2e/roles/processes.js';
import { launchChromium, openNewThread, sendMessage } from '../test/e2e/web/browser.js';
import { freePort } from '../test/support/redis-server.js';

const CSV = [
  'month,region,revenue',
  ...[
    ['2026-01', 41200, 18300],
    ['2026-02', 43800, 19900],
    ['2026-03', 47900, 22400],
    ['2026-04', 52300, 21800],
    ['2026-05', 61500, 25100],
    ['2026-06', 68900, 27600],
  ].flatMap(([month, north, south]) => [`${month},North,${north}`, `${month},South,${south}`]),
].join('\n');

const QUESTION = 'Chart monthly revenue by region from sales.csv. Which region grew faster?';

// Every figure the answer states is printed by the run, so the footer reads "✓ … checked against run output".
const CHART_CODE = [
  'import pandas as pd',
  'import matplotlib.pyplot as plt',
  'df = pd.read_csv("/mnt/data/sales.csv", parse_dates=["month"])',
  'wide = df.pivot(index="month", columns="region", values="revenue")',
  'ax = wide.plot(marker="o", figsize=(7, 3.6), title="Revenue by month and region")',
  'ax.set_xlabel(""); ax.set_ylabel("revenue ($)")',
  'ax.yaxis.set_major_formatter(lambda v, _: f"{v/1000:.0f}k")',
  'plt.tight_layout(); plt.show()',
  'growth = wide.iloc[-1] / wide.iloc[0] - 1',
  'print(wide.iloc[[0, -1]].to_string())',
  'print((growth * 100).round(1).to_string())',
].join('\n');

const ANSWER = [
  '**North** grew faster: from $41,200 in January to $68,900 in June, up 67.2 %,',
  'against 50.8 % for South ($18,300 to $27,600). The chart shows both regions by month.',
].join(' ');

/** The model's turn: code first, the answer once the run's result came back (the chart follows it as a user image). */
function modelTurn(body: ChatRequestBody): FakeReply {
  return body.messages.some((m) => m.role === 'tool') ? fakeSay(ANSWER) : fakeRunCode(CHART_CODE);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'docs/images/web-chat-chart.png' } } });
  const out = resolve(values.out!);
  const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-screenshot-'));
  const llm = new FakeOpenAiServer({ fallback: (body) => modelTurn(body) });
  const modelUrl = await llm.start();
  const port = await freePort();
  const bot = spawnThreadlab({
    name: 'screenshot',
    role: 'all',
    entry: 'source',
    metricsPort: await freePort(),
    env: {
      OPENAI_API_KEY: 'sk-screenshot-0000000000',
      OPENAI_BASE_URL: modelUrl,
      OPENAI_MODEL: 'scripted-model',
      THREADLAB_SANDBOX_RUNTIME: 'runc',
      THREADLAB_WEB_ENABLED: 'true',
      THREADLAB_WEB_HOST: '127.0.0.1',
      THREADLAB_WEB_PORT: String(port),
      THREADLAB_DATA_DIR: join(dataDir, 'data'),
      THREADLAB_LOG_LEVEL: 'warn',
    },
  });
  const browser = await launchChromium();
  try {
    await bot.ready(180_000);
    const url = `http://127.0.0.1:${port}`;
    const page = await browser.newPage({ viewport: { width: 1180, height: 760 }, deviceScaleFactor: 1 });
    await openNewThread(page, url);
    await page.setInputFiles('#file-input', { name: 'sales.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    await sendMessage(page, QUESTION);
    const answer = page.locator('article.msg.bot', { hasText: 'grew faster' });
    await answer.waitFor({ timeout: 120_000 });
    await answer
      .locator('img.chart')
      .first()
      .evaluate((img) => (img as HTMLImageElement).decode());
    await page.locator('#status', { hasText: 'Done' }).waitFor({ timeout: 30_000 });
    mkdirSync(dirname(out), { recursive: true });
    await page.screenshot({ path: out });
    process.stdout.write(`wrote ${out} (${llm.requests.length} model requests)\n`);
  } catch (err) {
    // What the bot and the model saw, to say why the answer never came.
    process.stderr.write(`${bot.output().slice(-4000)}\n${llm.requests.length} model requests\n`);
    throw err;
  } finally {
    await browser.close();
    await stopProcess(bot, 'SIGTERM');
    await removeContainersOf([bot.pid]).catch(() => undefined);
    await llm.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
