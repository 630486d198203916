import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../../src/domain/progress-event.js';
import { answer, ScriptedLlm, toolCalls } from '../../fakes/scripted-llm.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { MemoryDataSources, salesSource } from '../../fakes/memory-data-sources.js';
import { rig, THREAD } from '../interpreter/helpers.js';

const scope = { platform: 'cli', user: 'u1', place: 'cli' };

function setup(steps: ConstructorParameters<typeof ScriptedLlm>[0], sources = new MemoryDataSources([salesSource()])) {
  const llm = new ScriptedLlm(steps);
  const sandbox = new FakeSandbox({ handler: () => ({ stdout: 'sales_q1: 2 rows x 2 columns\n' }) });
  const { interpreter } = rig({ llm, sandbox, sources });
  return { llm, sandbox, interpreter, sources };
}

const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) });

describe('a turn that queries a data source', () => {
  it('lists sources, queries one into a CSV and a DataFrame, and tells the model its name and preview', async () => {
    const { llm, sandbox, interpreter, sources } = setup({
      steps: [
        toolCalls([call('c1', 'list_sources', {})]),
        toolCalls([call('c2', 'sql', { source: 'sales', query: 'SELECT region, sum(amount) FROM orders GROUP BY 1' })]),
        answer('North leads.'),
      ],
    });
    const events: ProgressEvent[] = [];
    const result = await interpreter.handle(
      { threadKey: THREAD, text: 'revenue by region', uploaded: [] },
      { scope, onProgress: (e) => events.push(e) },
    );
    expect(result.outcome).toBe('answer');
    const first = llm.requests[0]!;
    expect(first.tools).toEqual(['run_code', 'list_sources', 'query_source']);
    expect(first.messages[0]!.content).toContain('- sales: Orders and revenue, 2024');
    const listed = llm.requests[1]!.messages.at(-1)!;
    expect(listed.content).toContain('- orders (~1,000 rows): region text, day date, amount numeric');
    // The alias went back to the server under our name; the result names the DataFrame and shows the preview.
    const third = llm.requests[2]!.messages;
    expect(third.at(-2)).toMatchObject({ role: 'assistant', toolCalls: [{ name: 'query_source' }] });
    expect(third.at(-1)!.content).toMatch(
      /Query on "sales": 2 rows .* loaded in the Python session as the DataFrame `sales_q1`/s,
    );
    expect(third.at(-1)!.content).toContain('sales_q1: 2 rows x 2 columns');
    expect(sources.queries[0]).toMatchObject({ source: 'sales', scope });
    const csv = await sandbox.readFile(THREAD, 'query_1_sales.csv');
    expect(csv.toString()).toBe('region,revenue\r\nnorth,1200.50\r\nsouth,980.25\r\n');
    expect(sandbox.runs[0]!.request).toMatchObject({ internal: true, language: 'python' });
    expect(sandbox.runs[0]!.request.code).toContain('sales_q1 = pd.read_csv("/mnt/data/query_1_sales.csv"');
    expect(result.runs[0]!.query).toMatchObject({
      source: 'sales',
      file: 'query_1_sales.csv',
      name: 'sales_q1',
      rows: 2,
    });
    expect(result.runs[0]!.result.artifacts[0]).toMatchObject({ path: 'query_1_sales.csv', mime: 'text/csv' });
    expect(events.filter((e) => e.type === 'query' || e.type === 'query_finished').map((e) => e.type)).toEqual([
      'query',
      'query_finished',
    ]);
  });

  it('gives a refusal back to the model in plain words, with nothing put in the thread', async () => {
    const { llm, sandbox, interpreter } = setup({
      steps: [
        toolCalls([call('c1', 'query_source', { source: 'sales', sql: 'DELETE FROM orders' })]),
        answer('I cannot.'),
      ],
    });
    await interpreter.handle({ threadKey: THREAD, text: 'delete them', uploaded: [] }, { scope });
    expect(llm.requests[1]!.messages.at(-1)!.content).toMatch(/\(refused\): .*only reading is allowed/);
    expect(sandbox.runs).toHaveLength(0);
  });

  it('offers no source tools and names no source when the scope may use none', async () => {
    const sources = new MemoryDataSources([salesSource({ users: ['someone-else'] })]);
    const { llm, interpreter } = setup({ steps: [answer('ok')] }, sources);
    await interpreter.handle({ threadKey: THREAD, text: 'hi', uploaded: [] }, { scope });
    expect(llm.requests[0]!.tools).toEqual(['run_code']);
    expect(llm.requests[0]!.messages[0]!.content).not.toContain('Data sources');
  });

  it('runs an sql fence as a query in the text protocol', async () => {
    const { llm, sandbox, interpreter } = setup({
      steps: [answer('```sql\n-- source: sales\n-- name: by_region\nSELECT region FROM orders\n```'), answer('Done.')],
    });
    await interpreter.handle({ threadKey: THREAD, text: 'regions', uploaded: [] }, { scope });
    expect(sandbox.runs[0]!.request.code).toContain('by_region = pd.read_csv(');
    expect(JSON.stringify(llm.requests[1]!.messages.at(-1)!.content)).toContain('DataFrame `by_region`');
  });

  it('runs a direct sql fence and answers plainly when no source is named or allowed', async () => {
    const { sandbox, interpreter } = setup(
      { steps: [] },
      new MemoryDataSources([salesSource(), { ...salesSource(), summary: { ...salesSource().summary, name: 'hr' } }]),
    );
    const unnamed = await interpreter.queryDirect({ threadKey: THREAD, fence: { sql: 'SELECT 1' } }, { scope });
    expect(unnamed.text).toMatch(/Name the source .*`sales`, `hr`/);
    const ran = await interpreter.queryDirect(
      { threadKey: THREAD, fence: { source: 'sales', sql: 'SELECT 1' } },
      { scope },
    );
    expect(ran).toMatchObject({ outcome: 'answer', direct: true, runs: [{ query: { file: 'query_1_sales.csv' } }] });
    const none = await interpreter.queryDirect({ threadKey: THREAD, fence: { source: 'sales', sql: 'SELECT 1' } }, {});
    expect(none.text).toMatch(/No data source is available/);
    expect(sandbox.runs).toHaveLength(1);
  });

  it('counts the saved rows as output: a figure only in the CSV (not in the preview) is found by the check', async () => {
    const many = salesSource({
      answer: () => ({
        columns: [
          { name: 'region', type: 'text' },
          { name: 'revenue', type: 'numeric' },
        ],
        rows: Array.from({ length: 12 }, (_, i) => [`r${i}`, `${1000 + i}.25`]),
      }),
    });
    const llm = new ScriptedLlm({
      steps: [
        toolCalls([call('c1', 'query_source', { source: 'sales', sql: 'SELECT * FROM orders' })]),
        answer('Region r11 made 1011.25 and r12 made 4321.75.'),
      ],
    });
    const { interpreter } = rig({
      llm,
      // The preview shows none of the figures: only the CSV holds 1011.25.
      sandbox: new FakeSandbox({ handler: () => ({ stdout: 'sales_q1: 12 rows x 2 columns\n' }) }),
      settings: { verifyFigures: 'mark' },
      sources: new MemoryDataSources([many]),
    });
    const result = await interpreter.handle({ threadKey: THREAD, text: 'revenue', uploaded: [] }, { scope });
    expect(result.figures).toMatchObject({ notFound: 1, notFoundTexts: ['4321.75'] });
    expect(result.figures!.marks.find((m) => m.text === '1011.25')).toMatchObject({ found: true });
  });

  it('a result the thread cannot hold is told to the model, and the turn goes on', async () => {
    const llm = new ScriptedLlm({
      steps: [toolCalls([call('c1', 'query_source', { source: 'sales', sql: 'SELECT * FROM orders' })]), answer('ok')],
    });
    const { interpreter } = rig({
      llm,
      sandbox: new FakeSandbox({ limits: { maxFileBytes: 10 } }),
      sources: new MemoryDataSources([salesSource()]),
    });
    const result = await interpreter.handle({ threadKey: THREAD, text: 'all', uploaded: [] }, { scope });
    expect(result.outcome).toBe('answer');
    expect(llm.requests[1]!.messages.at(-1)!.content).toMatch(
      /^Query on "sales": The 2 rows \(\d+ B\) could not be saved in the thread's files: .*Aggregate in SQL/,
    );
  });
});
