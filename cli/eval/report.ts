import { canonicalAnswer } from './answers.js';
import type { Mode, TaskRun } from './result.js';
import type { TaskReport } from './runner.js';
import { CATEGORIES } from './task.js';

/** What a run was, for the report's header and its JSON. */
export interface EvalContext {
  model: string;
  /** The endpoint with any credentials redacted. */
  endpoint: string;
  modes: readonly Mode[];
  concurrency: number;
  timeoutMs: number;
  inlineChars: number;
  /** Wall-clock time of the whole run. */
  wallSeconds: number;
}

/** The sums of one mode over the tasks run. */
export interface ModeTotals {
  tasks: number;
  correct: number;
  /** Correct answers as a share of the tasks, 0–1. */
  accuracy: number;
  rounds: number;
  runs: number;
  promptTokens: number;
  completionTokens: number;
  seconds: number;
  /** Tasks that ended without an answer to check (the model API or the sandbox failed, a budget ran out). */
  unanswered: number;
}

export const MODE_TITLES: Record<Mode, string> = { code: 'code execution', 'no-code': 'no code' };

export function totalsOf(runs: readonly TaskRun[]): ModeTotals {
  const add = (pick: (r: TaskRun) => number) => runs.reduce((n, r) => n + pick(r), 0);
  const correct = runs.filter((r) => r.correct).length;
  return {
    tasks: runs.length,
    correct,
    accuracy: runs.length === 0 ? 0 : correct / runs.length,
    rounds: add((r) => r.rounds),
    runs: add((r) => r.runs),
    promptTokens: add((r) => r.promptTokens),
    completionTokens: add((r) => r.completionTokens),
    seconds: add((r) => r.seconds),
    unanswered: runs.filter((r) => r.outcome !== 'answer').length,
  };
}

function runsOf(reports: readonly TaskReport[], mode: Mode): TaskRun[] {
  return reports.flatMap((r) => (r.runs[mode] ? [r.runs[mode]] : []));
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const fixed = (n: number, digits = 1) => n.toFixed(digits);
const percent = (t: ModeTotals) => `${t.correct}/${t.tasks} = ${fixed(100 * t.accuracy)} %`;

/** Rows as aligned columns; `right` lists the columns whose cells are right-aligned (numbers). */
function table(rows: string[][], right: ReadonlySet<number> = new Set()): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]?.length ?? 0)));
  return rows.map((row) =>
    row
      .map((cell, c) => (right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd(),
  );
}

function taskRows(reports: readonly TaskReport[], modes: readonly Mode[]): string[] {
  const header = ['task', 'category', ...modes.flatMap((m) => [m, 'rounds', 'tokens', 'seconds'])];
  const rows = reports.map((r) => [
    r.task.id,
    r.task.category,
    ...modes.flatMap((m) => {
      const run = r.runs[m];
      if (!run) return ['', '', '', ''];
      const mark = run.correct ? '✔' : run.outcome === 'answer' ? '✘' : `✘ ${run.outcome}`;
      return [mark, String(run.rounds), int(run.promptTokens + run.completionTokens), fixed(run.seconds)];
    }),
  ]);
  const numbers = new Set(modes.flatMap((_, i) => [3, 4, 5].map((c) => c + 4 * i)));
  return table([header, ...rows], numbers);
}

function totalRows(reports: readonly TaskReport[], modes: readonly Mode[]): string[] {
  const totals = modes.map((m) => totalsOf(runsOf(reports, m)));
  const per = (t: ModeTotals, n: number, digits = 1) => (t.tasks === 0 ? '—' : fixed(n / t.tasks, digits));
  const rows = [
    ['', ...modes.map((m) => MODE_TITLES[m])],
    ['accuracy', ...totals.map(percent)],
    ['rounds per task', ...totals.map((t) => per(t, t.rounds))],
    ['code runs per task', ...modes.map((m, i) => (m === 'code' ? per(totals[i]!, totals[i]!.runs) : '—'))],
    ['tokens', ...totals.map((t) => int(t.promptTokens + t.completionTokens))],
    [
      'tokens per task',
      ...totals.map((t) => (t.tasks === 0 ? '—' : int((t.promptTokens + t.completionTokens) / t.tasks))),
    ],
    ['seconds per task', ...totals.map((t) => per(t, t.seconds))],
    ['unanswered', ...totals.map((t) => String(t.unanswered))],
  ];
  const categories = CATEGORIES.filter((c) => reports.some((r) => r.task.category === c));
  if (categories.length > 1) {
    for (const category of categories) {
      const inCategory = reports.filter((r) => r.task.category === category);
      rows.push([`  ${category}`, ...modes.map((m) => percent(totalsOf(runsOf(inCategory, m))))]);
    }
  }
  return table(rows);
}

function misses(reports: readonly TaskReport[], modes: readonly Mode[]): string[] {
  return reports.flatMap((r) =>
    modes.flatMap((m) => {
      const run = r.runs[m];
      if (!run || run.correct) return [];
      const gave = run.given !== undefined ? `gave "${run.given}"; ` : '';
      const why = run.reason ?? `expected ${canonicalAnswer(r.built.expected)}`;
      return [`  ${r.task.id} (${MODE_TITLES[m]}): ${gave}${why.replace(/\s+/g, ' ').slice(0, 300)}`];
    }),
  );
}

/** The report as text: a row per task, the totals side by side, then what was not right and why. */
export function formatReport(reports: readonly TaskReport[], context: EvalContext): string {
  const modes = context.modes;
  const lines = [
    `threadlab eval: ${reports.length} task${reports.length === 1 ? '' : 's'}, model ${context.model} at ${context.endpoint}, ${modes.map((m) => MODE_TITLES[m]).join(' and ')}`,
    '',
    ...taskRows(reports, modes),
    '',
    ...totalRows(reports, modes),
  ];
  const wrong = misses(reports, modes);
  if (wrong.length > 0) lines.push('', 'Not right:', ...wrong);
  lines.push(
    '',
    `${fixed(context.wallSeconds)} s in all, ${context.concurrency} at a time; seconds per task are the turn's own ` +
      `(uploads excluded); without code the files were inlined up to ${int(context.inlineChars)} characters.`,
  );
  return `${lines.join('\n')}\n`;
}

/** The report as one JSON document (`--json`). */
export function reportJson(reports: readonly TaskReport[], context: EvalContext): unknown {
  return {
    ...context,
    tasks: reports.map((r) => ({
      id: r.task.id,
      category: r.task.category,
      expected: canonicalAnswer(r.built.expected),
      ...r.runs,
    })),
    totals: Object.fromEntries(context.modes.map((m) => [m, totalsOf(runsOf(reports, m))])),
  };
}
