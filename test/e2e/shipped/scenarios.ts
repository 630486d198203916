import type { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { xlsxWorkbook } from './xlsx.js';

/**
 * The four things every platform must do through `threadlab start`, as scripted model turns: the
 * model calls `run_code` in the real sandbox, then answers.
 */

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A workbook of monthly revenue; the revenue total is 54. */
export const SALES_ROWS: (string | number)[][] = [
  ['month', 'revenue'],
  ['Jan', 10],
  ['Feb', 14],
  ['Mar', 9],
  ['Apr', 21],
];

export function salesWorkbook(): Promise<Buffer> {
  return xlsxWorkbook(SALES_ROWS);
}

/** Python that reads the uploaded workbook, charts it and prints the total (`total=54`). */
const SPREADSHEET_CODE = [
  'import pandas as pd, matplotlib',
  'matplotlib.use("Agg")',
  'import matplotlib.pyplot as plt',
  'df = pd.read_excel("/mnt/data/sales.xlsx")',
  'fig, ax = plt.subplots()',
  'ax.bar(df["month"], df["revenue"])',
  'ax.set_title("Revenue by month")',
  'plt.show()',
  'print(f"total={df.revenue.sum()} best={df.loc[df.revenue.idxmax(), \'month\']}")',
].join('\n');

/** 2,000 lines (~32,000 characters): far beyond what is shown inline, so it comes back as a file. */
const LONG_OUTPUT_CODE = 'for i in range(2000):\n    print(f"row {i:05d} " + "x" * 20)';

/** The text of the model's last tool result (what the run printed, as the model saw it). */
export function lastToolResult(llm: FakeOpenAiServer): string {
  const messages = llm.requests.at(-1)?.body.messages ?? [];
  const tool = messages.filter((m) => m.role === 'tool').at(-1);
  return JSON.stringify(tool?.content ?? '');
}

/** Scripts "what is 6 × 7": a run printing 42, then an answer quoting it. */
export function scriptMention(llm: FakeOpenAiServer, tag: string): string {
  const answer = `${tag}: six times seven is 42.`;
  llm.push(fakeRunCode('print(6 * 7)'), fakeSay(answer));
  return answer;
}

/** Scripts the analysis of sales.xlsx with a bar chart. */
export function scriptSpreadsheet(llm: FakeOpenAiServer, tag: string): string {
  const answer = `${tag}: revenue totals 54, best in April; chart attached.`;
  llm.push(fakeRunCode(SPREADSHEET_CODE), fakeSay(answer));
  return answer;
}

/** Scripts a run whose output is too long to show inline. */
export function scriptLongOutput(llm: FakeOpenAiServer, tag: string): string {
  const answer = `${tag}: the full listing is attached.`;
  llm.push(fakeRunCode(LONG_OUTPUT_CODE), fakeSay(answer));
  return answer;
}

/** Checks the long output file: every line, first to last, none cut. */
export function isWholeListing(text: string): boolean {
  return text.includes('row 00000 ') && text.includes('row 01999 ') && text.split('\n').length >= 2000;
}
