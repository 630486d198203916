import { formatHint, type Expected } from './answers.js';
import type { EvalFile } from './files.js';

/** The kinds of work the tasks cover; `--category` picks one. */
export const CATEGORIES = ['aggregation', 'join', 'dates', 'cleaning', 'statistics', 'excel', 'chart'] as const;
export type Category = (typeof CATEGORIES)[number];

/**
 * The data a chart task's figure must show: a series of its bars (heights, or widths of horizontal bars) or
 * of its lines' y values. `ordered`: in this order along the axis; otherwise the same values in any order.
 */
export interface ChartCheck {
  values: number[];
  ordered: boolean;
  decimals: number;
}

/** A task with its files generated and its answer computed. */
export interface BuiltTask {
  files: EvalFile[];
  /** The question, without the answer format (see {@link promptOf}). */
  question: string;
  expected: Expected;
  /** Chart tasks: what the captured figure must plot. Checked only with code execution, which can draw. */
  chart?: ChartCheck;
}

/** One evaluation task: data generated from a fixed seed, a question, and its exact answer. */
export interface EvalTask {
  id: string;
  category: Category;
  build(): Promise<BuiltTask>;
}

/** The question as the model receives it, in both modes: the question and the answer format. */
export function promptOf(task: BuiltTask): string {
  return `${task.question}\n\nEnd your reply with one last line "ANSWER: <answer>", where <answer> is ${formatHint(task.expected)}.`;
}

export function defineTask(id: string, category: Category, build: () => BuiltTask | Promise<BuiltTask>): EvalTask {
  return { id, category, build: async () => build() };
}

export const answerOf = {
  number: (value: number, decimals: number): Expected => ({ kind: 'number', value, decimals }),
  text: (value: string): Expected => ({ kind: 'text', value }),
  date: (value: string): Expected => ({ kind: 'date', value }),
  list: (values: string[], ordered: boolean): Expected => ({ kind: 'list', values, ordered }),
  numbers: (values: number[], decimals: number): Expected => ({ kind: 'numbers', values, decimals }),
  map: (values: Record<string, number>, decimals: number): Expected => ({ kind: 'map', values, decimals }),
};
