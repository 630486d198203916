import { canonicalAnswer } from './answers.js';
import { countFailures, FAILURE_CLASSES, FAILURE_ORDER, failureOfRun, type FailureClass } from './failure.js';
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
  /** Answers whose figures were checked against run output (code execution only). */
  answersChecked: number;
  /** Figures of those answers checked, and of them the ones no run's output held. */
  figuresChecked: number;
  figuresNotFound: number;
  /** Answers that kept at least one figure no run printed. */
  answersWithNotFound: number;
  /** Turns in which the model was asked once to compute or remove such figures. */
  verificationRounds: number;
  /** The runs that were not right, by how they failed (cli/eval/failure.ts); every class, zero when none. */
  failures: Record<FailureClass, number>;
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
    answersChecked: runs.filter((r) => r.figures).length,
    figuresChecked: add((r) => r.figures?.checked ?? 0),
    figuresNotFound: add((r) => r.figures?.notFound ?? 0),
    answersWithNotFound: runs.filter((r) => (r.figures?.notFound ?? 0) > 0).length,
    verificationRounds: runs.filter((r) => r.figures?.verificationRound).length,
    failures: countFailures(runs.map(failureOfRun)),
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

/** The columns of one mode in the task rows: the code mode adds the figures found of those checked. */
function columnsOf(mode: Mode): string[] {
  return mode === 'code' ? [mode, 'rounds', 'tokens', 'seconds', 'figures'] : [mode, 'rounds', 'tokens', 'seconds'];
}

/** A run's figures cell: found of checked ("5/6"), `*` after a verification round, `—` when not checked. */
function figuresCell(run: TaskRun): string {
  const f = run.figures;
  if (!f) return '—';
  return `${f.checked - f.notFound}/${f.checked}${f.verificationRound ? '*' : ''}`;
}

function taskRows(reports: readonly TaskReport[], modes: readonly Mode[]): string[] {
  const header = ['task', 'category', ...modes.flatMap(columnsOf)];
  const rows = reports.map((r) => [
    r.task.id,
    r.task.category,
    ...modes.flatMap((m) => {
      const run = r.runs[m];
      if (!run) return columnsOf(m).map(() => '');
      // A wrong answer is the plain miss; any other failure names its class.
      const failure = failureOfRun(run);
      const mark = run.correct ? '✔' : failure === 'wrong_answer' ? '✘' : `✘ ${failure}`;
      const cells = [mark, String(run.rounds), int(run.promptTokens + run.completionTokens), fixed(run.seconds)];
      return m === 'code' ? [...cells, figuresCell(run)] : cells;
    }),
  ]);
  // Every column but the task, the category and each mode's mark holds a number.
  const numbers = new Set<number>();
  let column = 2;
  for (const m of modes) {
    columnsOf(m).forEach((_, i) => i > 0 && numbers.add(column + i));
    column += columnsOf(m).length;
  }
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
  if (modes.includes('code')) {
    // Figures are checked where code ran: the no-code mode has no output to check them against.
    const code = (pick: (t: ModeTotals) => string) => modes.map((m, i) => (m === 'code' ? pick(totals[i]!) : '—'));
    rows.push(
      ['answers checked', ...code((t) => String(t.answersChecked))],
      ['figures checked', ...code((t) => String(t.figuresChecked))],
      ['figures not found', ...code((t) => String(t.figuresNotFound))],
      ['answers with a figure not found', ...code((t) => `${t.answersWithNotFound}/${t.answersChecked}`)],
      ['verification rounds', ...code((t) => String(t.verificationRounds))],
    );
  }
  rows.push(...failureRows(totals));
  const categories = CATEGORIES.filter((c) => reports.some((r) => r.task.category === c));
  if (categories.length > 1) {
    for (const category of categories) {
      const inCategory = reports.filter((r) => r.task.category === category);
      rows.push([`  ${category}`, ...modes.map((m) => percent(totalsOf(runsOf(inCategory, m))))]);
    }
  }
  return table(rows);
}

/** A row per failure class that any mode had, under a heading row: how the runs that were not right failed. */
function failureRows(totals: readonly ModeTotals[]): string[][] {
  const seen = FAILURE_ORDER.filter((c) => totals.some((t) => t.failures[c] > 0));
  if (seen.length === 0) return [];
  return [
    ['how the others failed', ...totals.map(() => '')],
    ...seen.map((c) => [`  ${c}: ${FAILURE_CLASSES[c]}`, ...totals.map((t) => String(t.failures[c]))]),
  ];
}

function misses(reports: readonly TaskReport[], modes: readonly Mode[]): string[] {
  return reports.flatMap((r) =>
    modes.flatMap((m) => {
      const run = r.runs[m];
      if (!run || run.correct) return [];
      const gave = run.given !== undefined ? `gave "${run.given}"; ` : '';
      const why = run.reason ?? `expected ${canonicalAnswer(r.built.expected)}`;
      // As in the task rows, a wrong answer is the plain miss and any other failure names its class.
      const failure = failureOfRun(run);
      const tag = failure === 'wrong_answer' ? '' : ` [${failure}]`;
      return [`  ${r.task.id} (${MODE_TITLES[m]})${tag}: ${gave}${why.replace(/\s+/g, ' ').slice(0, 300)}`];
    }),
  );
}

const FIGURES_LEGEND =
  'figures: of the figures in the final answer, those found in the runs’ output / those checked; * after one ' +
  'verification round (the model was asked to compute or remove the others); — not checked.';

/** The report as text: a row per task, the totals side by side, then what was not right and why. */
export function formatReport(reports: readonly TaskReport[], context: EvalContext): string {
  const modes = context.modes;
  const lines = [
    `threadlab eval: ${reports.length} task${reports.length === 1 ? '' : 's'}, model ${context.model} at ${context.endpoint}, ${modes.map((m) => MODE_TITLES[m]).join(' and ')}`,
    '',
    ...taskRows(reports, modes),
    ...(modes.includes('code') ? [FIGURES_LEGEND] : []),
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
