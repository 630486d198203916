import type { Expected } from '../answers.js';
import { campaignsCsv, campaignsData, type Campaign } from '../data/campaigns.js';
import { argmaxUnique, mean, median, pearson, quantile, sampleStd, slope } from '../stats.js';
import { answerOf, defineTask, type EvalTask } from '../task.js';

const INTRO =
  'campaigns.csv has one row per marketing campaign: its channel, ad_spend, visits, conversions and revenue.';

const spendAndRevenue = (c: Campaign[]): [number[], number[]] => [c.map((x) => x.adSpend), c.map((x) => x.revenue)];

function statsTask(id: string, question: string, answer: (c: Campaign[]) => Expected): EvalTask {
  return defineTask(id, 'statistics', () => {
    const campaigns = campaignsData();
    return { files: [campaignsCsv(campaigns)], question: `${INTRO} ${question}`, expected: answer(campaigns) };
  });
}

/** Medians, spread, percentiles, correlation, regression and outliers. */
export const statisticsTasks: EvalTask[] = [
  statsTask('stats-median-spend', 'What is the median ad_spend?', (c) =>
    answerOf.number(median(c.map((x) => x.adSpend)), 2),
  ),
  statsTask('stats-std-revenue', 'What is the sample standard deviation (n − 1) of revenue?', (c) =>
    answerOf.number(sampleStd(c.map((x) => x.revenue)), 2),
  ),
  statsTask('stats-correlation', "What is Pearson's correlation coefficient between ad_spend and revenue?", (c) =>
    answerOf.number(pearson(...spendAndRevenue(c)), 3),
  ),
  statsTask(
    'stats-regression-slope',
    'Fit a least-squares line revenue = a + b × ad_spend. What is the slope b?',
    (c) => answerOf.number(slope(...spendAndRevenue(c)), 3),
  ),
  statsTask(
    'stats-p90-visits',
    'What is the 90th percentile of visits (linear interpolation between the closest ranks)?',
    (c) =>
      answerOf.number(
        quantile(
          c.map((x) => x.visits),
          0.9,
        ),
        1,
      ),
  ),
  statsTask(
    'stats-channel-conversion',
    'The conversion rate of a campaign is conversions / visits. Which channel has the highest median conversion rate?',
    (c) => {
      const rates = new Map<string, number>();
      for (const channel of new Set(c.map((x) => x.channel)))
        rates.set(channel, median(c.filter((x) => x.channel === channel).map((x) => x.conversions / x.visits)));
      return answerOf.text(argmaxUnique(rates));
    },
  ),
  statsTask(
    'stats-revenue-outliers',
    'How many campaigns have a revenue more than 2 standard deviations away from the mean revenue (z-score with ' +
      'the sample standard deviation, |z| > 2)?',
    (c) => {
      const revenue = c.map((x) => x.revenue);
      const [m, s] = [mean(revenue), sampleStd(revenue)];
      return answerOf.number(revenue.filter((r) => Math.abs((r - m) / s) > 2).length, 0);
    },
  ),
  statsTask(
    'stats-iqr-conversions',
    'What is the interquartile range (75th minus 25th percentile, linear interpolation) of conversions?',
    (c) => {
      const conversions = c.map((x) => x.conversions);
      return answerOf.number(quantile(conversions, 0.75) - quantile(conversions, 0.25), 2);
    },
  ),
];
