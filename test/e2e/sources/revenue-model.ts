import type { ChatRequestBody, FakeReply } from '../../fakes/fake-openai-server.js';

/**
 * A model that answers "revenue by region, and plot it" the way a real one would with data sources: it lists the
 * sources, queries the revenue by region into a DataFrame, plots it with code, and answers from the printed output.
 * Each step is chosen from the request it is sent (the last tool result), so the script follows the real loop.
 */
export const REVENUE_QUESTION = 'What was revenue by region in 2024? Plot it.';
export const REVENUE_SQL =
  "SELECT region, sum(amount) AS revenue FROM sales WHERE day >= date '2024-01-01' GROUP BY region ORDER BY region";
export const PLOT_CODE = [
  'import matplotlib.pyplot as plt',
  'ax = revenue.plot.bar(x="region", y="revenue", title="Revenue by region", legend=False)',
  'plt.show()',
  'top = revenue.sort_values("revenue").iloc[-1]',
  'print(f"TOP {top.region} {top.revenue:.2f}")',
].join('\n');

type Message = ChatRequestBody['messages'][number];
const text = (m: Message | undefined): string =>
  typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? '');

let seq = 0;
const call = (name: string, args: unknown): FakeReply => ({
  kind: 'message',
  content: null,
  toolCalls: [{ name, arguments: JSON.stringify(args) }],
  usage: { prompt_tokens: 200, completion_tokens: 30 + (seq++ % 3) },
});

export function revenueModel(body: ChatRequestBody): FakeReply {
  const names = (body.tools ?? []).map((t) => t.function.name);
  if (!names.includes('query_source')) return { kind: 'message', content: 'No data source is available to me here.' };
  // The charts of a run come back as a user message of Threadlab's after the tool result; a question is the user's.
  const last = body.messages.findLast(
    (m) => m.role === 'tool' || (m.role === 'user' && !text(m).includes('[Threadlab]')),
  );
  if (last?.role !== 'tool') return call('list_sources', {});
  const result = text(last);
  if (result.includes('Source "sales"'))
    return call('query_source', { source: 'sales', sql: REVENUE_SQL, name: 'revenue' });
  if (result.includes('DataFrame `revenue`')) return call('run_code', { language: 'python', code: PLOT_CODE });
  const top = /TOP (\w+) ([\d.]+)/.exec(result);
  if (top)
    return { kind: 'message', content: `Revenue by region is in the chart: **${top[1]}** leads with **${top[2]}**.` };
  return { kind: 'message', content: `Something went wrong: ${result.slice(0, 200)}` };
}
