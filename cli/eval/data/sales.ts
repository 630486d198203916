import { daysInMonth, isoDate } from '../calendar.js';
import { csvFile, type EvalFile } from '../files.js';
import { Random } from '../random.js';
import { round } from '../stats.js';

/** The orders, customers and products of a small shop in 2023: the aggregation, join, date and chart tasks. */

export const REGIONS = ['East', 'North', 'South', 'West'] as const;
export const SEGMENTS = ['Consumer', 'Corporate', 'Small Business'] as const;
export const COUNTRIES = ['France', 'Germany', 'Italy', 'Netherlands', 'Poland', 'Spain'] as const;

export interface Product {
  name: string;
  category: 'Hardware' | 'Software' | 'Accessories';
  listPrice: number;
  unitCost: number;
}

export const PRODUCTS: readonly Product[] = [
  { name: 'Widget', category: 'Hardware', listPrice: 24.99, unitCost: 14.2 },
  { name: 'Gadget', category: 'Hardware', listPrice: 59.5, unitCost: 38.75 },
  { name: 'Sprocket', category: 'Hardware', listPrice: 7.25, unitCost: 3.1 },
  { name: 'Gizmo', category: 'Accessories', listPrice: 15, unitCost: 6.4 },
  { name: 'Doohickey', category: 'Accessories', listPrice: 4.75, unitCost: 1.9 },
  { name: 'Cable Kit', category: 'Accessories', listPrice: 11.9, unitCost: 4.05 },
  { name: 'Planner Pro', category: 'Software', listPrice: 129, unitCost: 22 },
  { name: 'Ledger Lite', category: 'Software', listPrice: 49, unitCost: 9.5 },
];

export interface Customer {
  id: string;
  name: string;
  segment: (typeof SEGMENTS)[number];
  country: (typeof COUNTRIES)[number];
  signupDate: string;
}

export interface Order {
  id: string;
  date: string;
  region: (typeof REGIONS)[number];
  product: string;
  customerId: string;
  units: number;
  unitPrice: number;
}

export interface SalesData {
  orders: Order[];
  customers: Customer[];
}

const FIRST = ['Ada', 'Bruno', 'Chiara', 'Dmitri', 'Elena', 'Farid', 'Greta', 'Hugo', 'Ines', 'Jonas'];
const LAST = ['Albers', 'Berg', 'Conti', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Horvat', 'Jansen', 'Kowalski'];
const CUSTOMERS = 40;
/** Customers past this index never order (the "customers without orders" question). */
const BUYERS = 33;
const ORDERS = 480;
const MONTH_WEIGHTS = [6, 5, 7, 8, 9, 8, 7, 6, 10, 9, 8, 12];

/** Revenue of one order: units × unit price. */
export function revenue(order: Order): number {
  return order.units * order.unitPrice;
}

/** The shop's data for a seed; the same seed always gives the same rows. */
export function salesData(seed = 2023): SalesData {
  const rng = new Random(seed);
  const names = rng.shuffle(FIRST.flatMap((f) => LAST.map((l) => `${f} ${l}`))).slice(0, CUSTOMERS);
  const customers = names.map((name, i) => ({
    id: `C${String(i + 1).padStart(3, '0')}`,
    name,
    segment: rng.weighted(SEGMENTS, [5, 3, 2]),
    country: rng.pick(COUNTRIES),
    signupDate: isoDate(rng.pick([2022, 2023]), rng.int(1, 9), rng.int(1, 28)),
  }));
  const buyerWeights = customers.slice(0, BUYERS).map(() => 0.5 + rng.next() * 3);
  const months = MONTH_WEIGHTS.map((_, i) => i + 1);
  const orders: Order[] = [];
  for (let i = 0; i < ORDERS; i += 1) {
    const month = rng.weighted(months, MONTH_WEIGHTS);
    const product = rng.weighted(PRODUCTS, [9, 5, 8, 7, 8, 6, 2, 4]);
    const discount = rng.pick([0, 0, 0, 0.05, 0.1, 0.15]);
    orders.push({
      id: `O${String(10001 + i)}`,
      date: isoDate(2023, month, rng.int(1, daysInMonth(2023, month))),
      region: rng.weighted(REGIONS, [10, 12, 9, 11]),
      product: product.name,
      customerId: rng.weighted(customers.slice(0, BUYERS), buyerWeights).id,
      units: rng.chance(0.1) ? rng.int(15, 30) : rng.int(1, 12),
      unitPrice: round(product.listPrice * (1 - discount), 2),
    });
  }
  orders.sort((a, b) => a.date.localeCompare(b.date) || a.id.localeCompare(b.id));
  return { orders, customers };
}

export function salesCsv(data: SalesData): EvalFile {
  return csvFile('sales.csv', {
    columns: ['order_id', 'date', 'region', 'product', 'customer_id', 'units', 'unit_price'],
    rows: data.orders.map((o) => [o.id, o.date, o.region, o.product, o.customerId, o.units, o.unitPrice]),
  });
}

export function customersCsv(data: SalesData): EvalFile {
  return csvFile('customers.csv', {
    columns: ['customer_id', 'name', 'segment', 'country', 'signup_date'],
    rows: data.customers.map((c) => [c.id, c.name, c.segment, c.country, c.signupDate]),
  });
}

export function productsCsv(): EvalFile {
  return csvFile('products.csv', {
    columns: ['product', 'category', 'list_price', 'unit_cost'],
    rows: PRODUCTS.map((p) => [p.name, p.category, p.listPrice, p.unitCost]),
  });
}
