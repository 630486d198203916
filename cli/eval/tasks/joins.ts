import { customersCsv, PRODUCTS, productsCsv, revenue, salesCsv, salesData, type SalesData } from '../data/sales.js';
import { argmaxUnique, sum, totalsBy } from '../stats.js';
import { answerOf, defineTask, type EvalTask } from '../task.js';
import { SALES_INTRO } from './aggregation.js';

const CUSTOMERS_INTRO = 'customers.csv describes the customers (customer_id matches sales.csv).';

function customerOf(d: SalesData): Map<string, SalesData['customers'][number]> {
  return new Map(d.customers.map((c) => [c.id, c]));
}

function bothFiles(d: SalesData) {
  return [salesCsv(d), customersCsv(d)];
}

/** Questions that need two files joined on a key. */
export const joinTasks: EvalTask[] = [
  defineTask('join-corporate-revenue', 'join', () => {
    const d = salesData();
    const byId = customerOf(d);
    const corporate = d.orders.filter((o) => byId.get(o.customerId)?.segment === 'Corporate');
    return {
      files: bothFiles(d),
      question: `${SALES_INTRO} ${CUSTOMERS_INTRO} What is the total revenue from customers in the Corporate segment?`,
      expected: answerOf.number(sum(corporate.map(revenue)), 2),
    };
  }),
  defineTask('join-top-country', 'join', () => {
    const d = salesData();
    const byId = customerOf(d);
    return {
      files: bothFiles(d),
      question: `${SALES_INTRO} ${CUSTOMERS_INTRO} Customers of which country brought in the most revenue?`,
      expected: answerOf.text(argmaxUnique(totalsBy(d.orders, (o) => byId.get(o.customerId)!.country, revenue))),
    };
  }),
  defineTask('join-customers-without-orders', 'join', () => {
    const d = salesData();
    const buyers = new Set(d.orders.map((o) => o.customerId));
    return {
      files: bothFiles(d),
      question: `${SALES_INTRO} ${CUSTOMERS_INTRO} How many customers in customers.csv placed no order at all?`,
      expected: answerOf.number(d.customers.filter((c) => !buyers.has(c.id)).length, 0),
    };
  }),
  defineTask('join-top-customer', 'join', () => {
    const d = salesData();
    const byId = customerOf(d);
    const top = argmaxUnique(totalsBy(d.orders, (o) => o.customerId, revenue));
    return {
      files: bothFiles(d),
      question: `${SALES_INTRO} ${CUSTOMERS_INTRO} What is the name of the customer with the highest total revenue?`,
      expected: answerOf.text(byId.get(top)!.name),
    };
  }),
  defineTask('join-hardware-margin', 'join', () => {
    const d = salesData();
    const product = new Map(PRODUCTS.map((p) => [p.name, p]));
    const hardware = d.orders.filter((o) => product.get(o.product)!.category === 'Hardware');
    const margin = sum(hardware.map((o) => o.units * (o.unitPrice - product.get(o.product)!.unitCost)));
    return {
      files: [salesCsv(d), productsCsv()],
      question:
        `${SALES_INTRO} products.csv gives each product's category and unit_cost. What is the total gross margin ` +
        '(revenue minus units × unit_cost) of the products in the Hardware category?',
      expected: answerOf.number(margin, 2),
    };
  }),
  defineTask('join-orders-before-signup', 'join', () => {
    const d = salesData();
    const byId = customerOf(d);
    const early = d.orders.filter((o) => o.date < byId.get(o.customerId)!.signupDate);
    return {
      files: bothFiles(d),
      question:
        `${SALES_INTRO} ${CUSTOMERS_INTRO} How many orders are dated strictly before the signup_date of the ` +
        'customer who placed them?',
      expected: answerOf.number(early.length, 0),
    };
  }),
];
