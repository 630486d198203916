import type { EvalTask } from '../task.js';
import { aggregationTasks } from './aggregation.js';
import { chartTasks } from './charts.js';
import { cleaningTasks } from './cleaning.js';
import { dateTasks } from './dates.js';
import { excelTasks } from './excel.js';
import { joinTasks } from './joins.js';
import { statisticsTasks } from './statistics.js';

/** Every bundled task, in the order `threadlab eval` runs and prints them. */
export const EVAL_TASKS: readonly EvalTask[] = [
  ...aggregationTasks,
  ...joinTasks,
  ...dateTasks,
  ...cleaningTasks,
  ...statisticsTasks,
  ...excelTasks,
  ...chartTasks,
];
