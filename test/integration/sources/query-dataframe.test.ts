import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDataSources } from '../../../adapters/postgres/postgres-data-sources.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { Interpreter } from '../../../src/interpreter/interpreter.js';
import type { SourceScope } from '../../../src/ports/data-sources.js';
import { answer, ScriptedLlm, toolCalls } from '../../fakes/scripted-llm.js';
import { sourceOn, startPostgres, type PrivatePostgres } from '../../support/postgres-server.js';
import { logger, makeSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { llmSettings } from '../../unit/interpreter/helpers.js';

const scope: SourceScope = { platform: 'web', user: 'u1', place: 'web' };
const THREAD = `web:local:web:query-df-${process.pid}`;
const BY_REGION =
  'SELECT region, sum(amount) AS revenue, count(*) AS orders, min(day) AS first_day FROM sales GROUP BY region ORDER BY region';

let pg: PrivatePostgres;
let sources: PostgresDataSources;
let box: TestSandbox;

/** The model loop over the real sandbox and the real source, as the bot builds it. */
const interpreterFor = (llm: ScriptedLlm): Interpreter =>
  new Interpreter({
    llm,
    sandbox: box.sandbox,
    store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
    settings: llmSettings({ turnTimeoutMs: 120_000 }),
    sandboxTimeoutMs: 30_000,
    logger,
    sources,
  });

beforeAll(async () => {
  [pg, box] = await Promise.all([startPostgres(), makeSandbox('query-df', { timeoutMs: 30_000 })]);
  sources = new PostgresDataSources({
    secrets: [pg.reader.password],
    sources: [sourceOn(pg, pg.reader, { name: 'sales', description: 'Sales by day' })],
  });
}, 120_000);
afterAll(async () => {
  await sources?.close();
  await box?.close();
  await pg?.stop();
});

describe('a query lands in the kernel as a DataFrame', () => {
  it('the next run uses it: dtypes from the column types, dates parsed, the sums the server computes', async () => {
    const llm = new ScriptedLlm({
      steps: [
        toolCalls([
          {
            id: 'q1',
            name: 'query_source',
            arguments: JSON.stringify({ source: 'sales', sql: BY_REGION, name: 'by_region' }),
          },
        ]),
        toolCalls([
          {
            id: 'r1',
            name: 'run_code',
            arguments: JSON.stringify({
              language: 'python',
              code: [
                'print(str(by_region["revenue"].dtype), str(by_region["orders"].dtype), str(by_region["first_day"].dtype), str(by_region["region"].dtype))',
                'print(f"total={by_region.revenue.sum():.2f} orders={int(by_region.orders.sum())}")',
              ].join('\n'),
            }),
          },
        ]),
        answer('Done.'),
      ],
    });
    const interpreter = interpreterFor(llm);
    const started = Date.now();
    const turn = await interpreter.handle({ threadKey: THREAD, text: 'revenue by region', uploaded: [] }, { scope });
    expect(turn.outcome).toBe('answer');
    const [load, analysis] = turn.runs;
    expect(load!.query).toMatchObject({ source: 'sales', name: 'by_region', file: 'query_1_sales.csv', rows: 6 });
    expect(load!.result.status).toBe('ok');
    expect(load!.result.stdout).toContain('by_region: 6 rows x 4 columns');
    const total = await pg.psql("SELECT sum(amount)::numeric(14,2) || ' ' || count(*) FROM sales");
    const [sum, count] = total.trim().split(' ');
    expect(analysis!.result.stdout).toContain('float64 Int64 datetime64[ns] string');
    expect(analysis!.result.stdout).toContain(`total=${sum} orders=${count}`);
    // The CSV is in the thread's files, as the port gave it.
    const csv = (await box.sandbox.readFile(THREAD, 'query_1_sales.csv')).toString();
    expect(csv.split('\r\n')[0]).toBe('region,revenue,orders,first_day');
    // No credential reached the model.
    const sent = JSON.stringify(llm.requests);
    expect(sent).not.toContain(pg.reader.password);
    expect(sent).not.toContain(pg.urlFor(pg.reader));
    console.info(`query + load + analysis turn: ${Date.now() - started} ms`);
  }, 120_000);

  it('every row of a table arrives, and text with commas, quotes and newlines round-trips, and a NULL and an empty string in the same column stay apart (missing, and an empty string)', async () => {
    const llm = new ScriptedLlm({
      steps: [
        toolCalls([
          {
            id: 'a',
            name: 'query_source',
            arguments: JSON.stringify({ source: 'sales', sql: 'SELECT * FROM sales', name: 'all_sales' }),
          },
          {
            id: 'b',
            name: 'query_source',
            arguments: JSON.stringify({ source: 'sales', sql: 'SELECT * FROM notes ORDER BY id', name: 'notes' }),
          },
        ]),
        toolCalls([
          {
            id: 'c',
            name: 'run_code',
            arguments: JSON.stringify({
              language: 'python',
              code: 'print(len(all_sales), repr(list(notes.body)))',
            }),
          },
        ]),
        answer('Done.'),
      ],
    });
    const interpreter = interpreterFor(llm);
    const turn = await interpreter.handle({ threadKey: THREAD, text: 'all rows', uploaded: [] }, { scope });
    const [rows, notes, check] = turn.runs;
    // Numbers continue per thread: the first test's file is kept.
    expect(rows!.query).toMatchObject({ file: 'query_2_sales.csv', rows: 20_000 });
    expect(notes!.query).toMatchObject({ file: 'query_3_sales.csv', rows: 6 });
    expect(check!.result.stdout.trim()).toBe(`20000 ['plain', 'a, comma', 'a "quote"', 'two\\nlines', <NA>, '']`);
    console.info(
      `20,000 rows: query ${rows!.query!.ms} ms (${rows!.query!.bytes} bytes), DataFrame load ${rows!.result.durationMs} ms`,
    );
  }, 120_000);

  it('100,000 rows into a DataFrame in the thread: the query, the CSV into the sandbox and the load, timed', async () => {
    const sql = 'SELECT s.* FROM sales s CROSS JOIN generate_series(1, 5) AS g';
    const llm = new ScriptedLlm({
      steps: [
        toolCalls([
          { id: 'big', name: 'query_source', arguments: JSON.stringify({ source: 'sales', sql, name: 'big' }) },
        ]),
        answer('Done.'),
      ],
    });
    const interpreter = interpreterFor(llm);
    const events: { type: string; atMs: number }[] = [];
    await interpreter.handle(
      { threadKey: THREAD, text: 'all of it', uploaded: [] },
      { scope, onProgress: (e) => events.push({ type: e.type, atMs: Date.now() }) },
    );
    const started = events.find((e) => e.type === 'query')!.atMs;
    const finished = events.find((e) => e.type === 'query_finished')!.atMs;
    const q = llm.requests[1]!.messages.at(-1)!.content as string;
    expect(q).toMatch(/Query on "sales": 100000 rows/);
    expect(q).toContain('big: 100000 rows x 4 columns');
    console.info(`100,000 rows: query to DataFrame in the thread ${finished - started} ms (${q.split('\n')[0]})`);
  }, 120_000);
});
