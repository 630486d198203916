import type { Expected } from '../answers.js';
import { PRODUCTS, revenue, salesCsv, salesData, type SalesData } from '../data/sales.js';
import { argmaxUnique, mean, rankedKeys, sum, totalsBy } from '../stats.js';
import { answerOf, defineTask, type Category, type EvalTask } from '../task.js';

export const SALES_INTRO =
  "sales.csv has one row per order a shop took in 2023; an order's revenue is units × unit_price.";

/** A question about sales.csv alone, its answer computed from the orders. */
export function salesTask(
  id: string,
  category: Category,
  question: string,
  answer: (d: SalesData) => Expected,
): EvalTask {
  return defineTask(id, category, () => {
    const d = salesData();
    return { files: [salesCsv(d)], question: `${SALES_INTRO} ${question}`, expected: answer(d) };
  });
}

/** Sums and counts over one file, overall and per group. */
export const aggregationTasks: EvalTask[] = [
  salesTask('agg-total-revenue', 'aggregation', 'What is the total revenue of all orders?', (d) =>
    answerOf.number(sum(d.orders.map(revenue)), 2),
  ),
  salesTask('agg-top-region', 'aggregation', 'Which region brought in the most revenue?', (d) =>
    answerOf.text(argmaxUnique(totalsBy(d.orders, (o) => o.region, revenue))),
  ),
  salesTask('agg-units-gadget-north', 'aggregation', 'How many units of Gadget were sold in the North region?', (d) =>
    answerOf.number(sum(d.orders.filter((o) => o.product === 'Gadget' && o.region === 'North').map((o) => o.units)), 0),
  ),
  salesTask('agg-large-orders', 'aggregation', 'How many orders have a revenue of at least 500?', (d) =>
    answerOf.number(d.orders.filter((o) => revenue(o) >= 500).length, 0),
  ),
  salesTask(
    'agg-mean-units-south',
    'aggregation',
    'What is the average number of units per order in the South region?',
    (d) => answerOf.number(mean(d.orders.filter((o) => o.region === 'South').map((o) => o.units)), 2),
  ),
  salesTask(
    'agg-customers-planner',
    'aggregation',
    'How many different customers bought Planner Pro at least once?',
    (d) =>
      answerOf.number(new Set(d.orders.filter((o) => o.product === 'Planner Pro').map((o) => o.customerId)).size, 0),
  ),
  salesTask(
    'agg-top3-products',
    'aggregation',
    'Which three products brought in the most revenue? List them from the highest revenue down.',
    (d) => {
      const ranked = rankedKeys(totalsBy(d.orders, (o) => o.product, revenue));
      if (ranked.length !== PRODUCTS.length) throw new Error('a product was never ordered');
      return answerOf.list(ranked.slice(0, 3), true);
    },
  ),
  salesTask('agg-west-share', 'aggregation', 'What percentage of the total revenue came from the West region?', (d) =>
    answerOf.number(
      (100 * sum(d.orders.filter((o) => o.region === 'West').map(revenue))) / sum(d.orders.map(revenue)),
      1,
    ),
  ),
];
