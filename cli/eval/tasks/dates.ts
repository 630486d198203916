import { epochMs, monthOf, weekdayOf } from '../calendar.js';
import { revenue } from '../data/sales.js';
import { OPEN_AT, signupsCsv, signupsData, ticketsCsv, ticketsData } from '../data/tickets.js';
import { argmaxUnique, median, sum, totalsBy } from '../stats.js';
import { answerOf, defineTask, type EvalTask } from '../task.js';
import { salesTask } from './aggregation.js';

const TICKETS_INTRO =
  'tickets.csv lists support tickets with the time each was opened and closed (closed_at is empty while a ticket is open).';
const SIGNUPS_INTRO =
  'signups.csv lists sign-ups; signup_date is written in three ways: YYYY-MM-DD, DD/MM/YYYY (day first) or "Month D, YYYY".';

/** Parsing dates and times, bucketing by month, weekday and quarter, durations. */
export const dateTasks: EvalTask[] = [
  salesTask('dates-busiest-month', 'dates', 'In which month were the most orders placed? Answer as YYYY-MM.', (d) =>
    answerOf.text(
      argmaxUnique(
        totalsBy(
          d.orders,
          (o) => monthOf(o.date),
          () => 1,
        ),
      ),
    ),
  ),
  salesTask(
    'dates-top-weekday',
    'dates',
    'On which day of the week (Monday to Sunday) was the most revenue taken?',
    (d) => answerOf.text(argmaxUnique(totalsBy(d.orders, (o) => weekdayOf(o.date), revenue))),
  ),
  salesTask(
    'dates-weekend-share',
    'dates',
    'What percentage of the total revenue came from orders placed on a Saturday or Sunday?',
    (d) => {
      const weekend = d.orders.filter((o) => ['Saturday', 'Sunday'].includes(weekdayOf(o.date)));
      return answerOf.number((100 * sum(weekend.map(revenue))) / sum(d.orders.map(revenue)), 1);
    },
  ),
  salesTask('dates-q3-revenue', 'dates', 'What was the revenue of the third quarter (July to September)?', (d) =>
    answerOf.number(sum(d.orders.filter((o) => o.date >= '2023-07-01' && o.date <= '2023-09-30').map(revenue)), 2),
  ),
  defineTask('dates-median-resolution', 'dates', () => {
    const tickets = ticketsData();
    const hours = tickets
      .filter((t) => t.closedAt !== null)
      .map((t) => (epochMs(t.closedAt!) - epochMs(t.openedAt)) / 3_600_000);
    return {
      files: [ticketsCsv(tickets)],
      question: `${TICKETS_INTRO} What is the median time from opened to closed, in hours, over the closed tickets?`,
      expected: answerOf.number(median(hours), 1),
    };
  }),
  defineTask('dates-open-at', 'dates', () => {
    const tickets = ticketsData();
    const at = epochMs(OPEN_AT);
    const open = tickets.filter((t) => epochMs(t.openedAt) <= at && (t.closedAt === null || epochMs(t.closedAt) > at));
    return {
      files: [ticketsCsv(tickets)],
      question: `${TICKETS_INTRO} How many tickets were open at ${OPEN_AT} (opened by then and not yet closed)?`,
      expected: answerOf.number(open.length, 0),
    };
  }),
  defineTask('dates-mixed-formats-april', 'dates', () => {
    const signups = signupsData();
    return {
      files: [signupsCsv(signups)],
      question: `${SIGNUPS_INTRO} How many sign-ups happened in April 2023?`,
      expected: answerOf.number(signups.filter((s) => monthOf(s.date) === '2023-04').length, 0),
    };
  }),
  defineTask('dates-first-business-signup', 'dates', () => {
    const signups = signupsData();
    const business = signups.filter((s) => s.plan === 'Business').map((s) => s.date);
    return {
      files: [signupsCsv(signups)],
      question: `${SIGNUPS_INTRO} On which date did the first sign-up for the Business plan happen?`,
      expected: answerOf.date(business.sort()[0]!),
    };
  }),
];
