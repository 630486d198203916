import { monthNumber } from '../calendar.js';
import { budgetData, budgetXlsx } from '../data/workbooks.js';
import { REGIONS, salesCsv, salesData } from '../data/sales.js';
import { sum, totalsBy } from '../stats.js';
import { answerOf, defineTask, type EvalTask } from '../task.js';
import { SALES_INTRO } from './aggregation.js';

/** Charts whose plotted data is checked (with code execution) along with the values the answer states. */
export const chartTasks: EvalTask[] = [
  defineTask('chart-units-by-region', 'chart', () => {
    const d = salesData();
    const units = Object.fromEntries(
      REGIONS.map((r) => [r, sum(d.orders.filter((o) => o.region === r).map((o) => o.units))]),
    );
    return {
      files: [salesCsv(d)],
      question: `${SALES_INTRO} Draw a bar chart of the total units sold per region, one bar per region. Then give the plotted value of each region.`,
      expected: answerOf.map(units, 0),
      chart: { values: Object.values(units), ordered: false, decimals: 0 },
    };
  }),
  defineTask('chart-monthly-orders', 'chart', () => {
    const d = salesData();
    const counts = Array.from({ length: 12 }, (_, m) => d.orders.filter((o) => monthNumber(o.date) === m + 1).length);
    return {
      files: [salesCsv(d)],
      question: `${SALES_INTRO} Draw a line chart of the number of orders per month, January to December 2023. Then give the 12 plotted values from January to December.`,
      expected: answerOf.numbers(counts, 0),
      chart: { values: counts, ordered: true, decimals: 0 },
    };
  }),
  defineTask('chart-fy2023-departments', 'chart', async () => {
    const lines = budgetData().filter((l) => l.year === 2023);
    const totals = Object.fromEntries(
      totalsBy(
        lines,
        (l) => l.department,
        (l) => l.spend,
      ),
    );
    return {
      files: [await budgetXlsx(budgetData())],
      question:
        'budget.xlsx has a sheet per fiscal year (FY2022, FY2023) with the monthly spend of each department. Draw a ' +
        'horizontal or vertical bar chart of the total FY2023 spend per department. Then give the plotted value of each department.',
      expected: answerOf.map(totals, 2),
      chart: { values: Object.values(totals), ordered: false, decimals: 2 },
    };
  }),
];
