import { runWithCode, type CodeModeDeps } from './code-mode.js';
import { runWithoutCode, type NoCodeDeps } from './no-code-mode.js';
import type { Mode, TaskRun } from './result.js';
import type { BuiltTask, EvalTask } from './task.js';

/** A task with its generated data and its run in each mode asked for. */
export interface TaskReport {
  task: EvalTask;
  built: BuiltTask;
  runs: Partial<Record<Mode, TaskRun>>;
}

export interface EvalPlan {
  tasks: readonly EvalTask[];
  modes: readonly Mode[];
  /** Task runs in flight at once (each code run holds a sandbox container). */
  concurrency: number;
}

export interface EvalDeps {
  /** Needed when the plan has the `code` mode. */
  code?: CodeModeDeps;
  noCode: NoCodeDeps;
  /** Called as each task run finishes, for progress. */
  onRun?: (run: TaskRun) => void;
}

/** Maps `items` through `work` with at most `limit` calls in flight; results keep the items' order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/** Runs every task of the plan in every mode of the plan, `concurrency` at a time. */
export async function runEval(plan: EvalPlan, deps: EvalDeps): Promise<TaskReport[]> {
  const built = await Promise.all(plan.tasks.map((task) => task.build()));
  const reports: TaskReport[] = plan.tasks.map((task, i) => ({ task, built: built[i]!, runs: {} }));
  const jobs = reports.flatMap((report) => plan.modes.map((mode) => ({ report, mode })));
  await mapBounded(jobs, plan.concurrency, async ({ report, mode }) => {
    if (mode === 'code' && !deps.code) throw new Error('runEval: the code mode needs its dependencies');
    const run =
      mode === 'code'
        ? await runWithCode(report.task, report.built, deps.code!)
        : await runWithoutCode(report.task, report.built, deps.noCode);
    report.runs[mode] = run;
    deps.onRun?.(run);
  });
  return reports;
}
