/**
 * Data sources as shipped (issue 38): `threadlab start` with the web chat, the fake OpenAI-compatible model, the real
 * Docker sandbox and a real PostgreSQL named by THREADLAB_SOURCES_FILE (its password from the environment). The model
 * lists the sources, queries revenue by region, plots it and answers; the thread gets the answer with its chart, the
 * export loads the saved result, a direct sql message runs as is, and the audit trail has a query line. Then every
 * output of the run is searched for the password and the URL.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { cliEnv } from '../../integration/cli/cli-process.js';
import { startPostgres, writeSourcesFile, type PrivatePostgres } from '../../support/postgres-server.js';
import { startWebThreadlab, type WebThreadlab } from '../model-servers/web-threadlab.js';
import { removeContainersOf } from '../roles/containers.js';
import { stopProcess } from '../roles/processes.js';
import { REVENUE_QUESTION, REVENUE_SQL, revenueModel } from './revenue-model.js';

let pg: PrivatePostgres;
let server: FakeOpenAiServer;
let bot: WebThreadlab | undefined;
let dataDir: string;
let auditPath: string;
/** What the web chat's API answered, kept for the secrets search. */
const answers: string[] = [];

/** Every file under `dir`, read (text and binary alike: a secret is bytes either way). */
function filesUnder(dir: string): { path: string; data: Buffer }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .filter((p) => statSync(p).size < 50 * 1024 * 1024)
    .map((path) => ({ path, data: readFileSync(path) }));
}

/** Polls `find` until it returns something, for at most a minute. */
async function until<T>(find: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`nothing found within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sources-start-'));
  auditPath = join(dataDir, 'trail', 'audit.jsonl');
  [pg] = await Promise.all([startPostgres()]);
  server = new FakeOpenAiServer({ fallback: revenueModel });
  await server.start();
  const sourcesFile = writeSourcesFile(dataDir, [
    {
      name: 'sales',
      kind: 'postgres',
      url: pg.urlFor(pg.reader),
      passwordEnv: 'SALES_DB_PASSWORD',
      description: 'Sales by day and region, 2024',
    },
  ]);
  const { origin } = new URL(server.baseUrl);
  const env = cliEnv(dataDir, {
    OPENAI_BASE_URL: `${origin}/v1`,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_MODEL: 'gpt-4.1-mini',
    THREADLAB_SOURCES_FILE: sourcesFile,
    SALES_DB_PASSWORD: pg.reader.password,
    THREADLAB_AUDIT_LOG: auditPath,
    THREADLAB_LOG_LEVEL: 'debug',
    THREADLAB_SANDBOX_RUNTIME: 'runc',
  });
  bot = await startWebThreadlab({ name: 'sources-start', env: env as Record<string, string>, dataDir });
}, 180_000);

afterAll(async () => {
  if (bot) {
    await stopProcess(bot.process, 'SIGTERM');
    await removeContainersOf([bot.process.pid]).catch(() => undefined);
  }
  await server?.stop();
  await pg?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('revenue by region through threadlab start, the web chat and a real PostgreSQL', () => {
  it('lists the source, queries, plots and answers with the figure the database holds, and its chart', async () => {
    const { web } = bot!;
    const info = (await (await fetch(new URL('/api/info', web['baseUrl']()))).json()) as { sources: unknown[] };
    expect(info.sources).toEqual([{ name: 'sales', kind: 'postgres', description: 'Sales by day and region, 2024' }]);
    const thread = await web.createThread();
    await web.post(thread, { text: REVENUE_QUESTION });
    const reply = await web.waitForAnswer(thread, 120_000);
    answers.push(JSON.stringify(await web.messages(thread)));
    const top = (
      await pg.psql(`SELECT region || ' ' || revenue FROM (${REVENUE_SQL}) r ORDER BY revenue DESC LIMIT 1`)
    ).trim();
    const [region, amount] = top.split(' ');
    expect(reply.text).toContain(`**${region}** leads with **${amount}**`);
    expect(reply.images?.length).toBe(1);
    expect(reply.files?.map((f) => f.name)).toContain('query_1_sales.csv');
    // The model was offered the tools, saw the schema and the DataFrame's preview, never a connection.
    const sent = JSON.stringify(server.requests.map((r) => r.body));
    expect(sent).toContain('- sales: Sales by day and region, 2024');
    expect(sent).toContain('region text, day date, amount numeric');
    expect(sent).toContain('revenue: 6 rows x 2 columns');
    // The audit trail: a query line with the SQL, rows and outcome.
    const lines = readFileSync(auditPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.kind === 'query')).toEqual([
      expect.objectContaining({
        source: 'sales',
        sql: REVENUE_SQL,
        outcome: 'ok',
        rows: 6,
        user: 'web-user',
        platform: 'web',
      }),
    ]);

    // The export: the SQL as Markdown, the loading cell, and the saved CSV attached, so it runs without the database.
    await web.post(thread, { text: '/export' });
    // The export's reply is a notice with its files.
    const exported = await until(async () =>
      (await web.messages(thread)).find((m) => m.files?.some((f) => f.name === 'thread.ipynb')),
    );
    answers.push(JSON.stringify(exported));
    const notebookFile = exported.files?.find((f) => f.name === 'thread.ipynb');
    const notebook = (await web.download(notebookFile!.url)).toString();
    answers.push(notebook);
    const cells = (JSON.parse(notebook) as { cells: { cell_type: string; source: string | string[] }[] }).cells.map(
      (c) => ({ type: c.cell_type, source: Array.isArray(c.source) ? c.source.join('') : c.source }),
    );
    const sqlCell = cells.findIndex((c) => c.type === 'markdown' && c.source.includes(REVENUE_SQL));
    expect(sqlCell).toBeGreaterThan(0);
    expect(cells[sqlCell + 1]).toMatchObject({ type: 'code' });
    expect(cells[sqlCell + 1]!.source).toContain('revenue = pd.read_csv("/mnt/data/query_1_sales.csv"');
    const csv = exported.files?.find((f) => f.name === 'query_1_sales.csv');
    expect((await web.download(csv!.url)).toString().split('\r\n')[0]).toBe('region,revenue');
  }, 240_000);

  it('runs a message that is one sql block as is, and answers a write with the refusal in plain words', async () => {
    const { web } = bot!;
    const thread = await web.createThread();
    await web.post(thread, { text: '```sql\n-- source: sales\nSELECT count(*) AS n FROM sales\n```' });
    const reply = await web.waitForAnswer(thread, 60_000);
    answers.push(JSON.stringify(await web.messages(thread)));
    expect(reply.text).toContain('20000');
    expect(reply.files?.map((f) => f.name)).toContain('query_1_sales.csv');
    await web.post(thread, { text: '```sql\n-- source: sales\nDELETE FROM sales\n```' });
    const refused = await web.nthAnswer(thread, 1, 60_000);
    answers.push(JSON.stringify(refused));
    expect(refused.text).toMatch(/sales/);
    expect(refused.text).not.toMatch(/error: |at Object|stack/i);
    expect(await pg.psql('SELECT count(*) FROM sales')).toContain('20000');
  }, 120_000);

  it('nothing the run wrote holds the password or the URL: replies, logs, the audit file, the export, the model requests, the data dir', async () => {
    const secrets = [pg.reader.password, pg.urlFor(pg.reader)];
    const outputs = [
      { what: 'the web chat answers and the export', text: answers.join('\n') },
      { what: 'the process output (logs at debug)', text: bot!.process.output() },
      { what: 'the model requests', text: JSON.stringify(server.requests.map((r) => r.body)) },
      ...filesUnder(join(dataDir, 'start')).map((f) => ({ what: f.path, text: f.data.toString('latin1') })),
      { what: 'the audit file', text: readFileSync(auditPath, 'utf8') },
    ];
    expect(answers.length).toBeGreaterThanOrEqual(4);
    expect(bot!.process.output().length).toBeGreaterThan(0);
    for (const { what, text } of outputs)
      for (const secret of secrets)
        expect(
          text.includes(secret),
          `${what} holds ${secret === pg.reader.password ? 'the password' : 'the URL'}`,
        ).toBe(false);
  });
});
