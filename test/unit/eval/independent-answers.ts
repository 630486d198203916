import type { EvalFile } from '../../../cli/eval/files.js';
import { parseCsv, readWorkbook, serialToIso } from './read-data.js';

/**
 * Answers recomputed from the files as written (parsed back from their bytes), the plain way and apart from
 * the generators' own records: a generator that wrote something other than what its answer was computed from
 * fails here.
 */
type Files = Map<string, EvalFile>;
type Row = Record<string, string>;

const csv = (files: Files, name: string): Row[] => parseCsv(files.get(name)!.data.toString('utf8'));
const total = (values: number[]) => values.reduce((a, b) => a + b, 0);
const revenueOf = (r: Row) => Number(r.units) * Number(r.unit_price);

function countBy(rows: Row[], key: (r: Row) => string, value: (r: Row) => number = () => 1): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) out.set(key(r), (out.get(key(r)) ?? 0) + value(r));
  return out;
}

function top(counts: Map<string, number>): string {
  return [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
}

/** Weekday from a local Date (no UTC arithmetic, unlike the generator). */
function weekday(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][
    new Date(y, m - 1, d).getDay()
  ]!;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July'];

function signupMonth(text: string): string {
  const iso = /^(\d{4})-(\d{2})-\d{2}$/.exec(text);
  if (iso) return `${iso[1]}-${iso[2]}`;
  const dayFirst = /^\d{2}\/(\d{2})\/(\d{4})$/.exec(text);
  if (dayFirst) return `${dayFirst[2]}-${dayFirst[1]}`;
  const [month, , year] = text.replace(',', '').split(' ');
  return `${year}-${String(MONTHS.indexOf(month!) + 1).padStart(2, '0')}`;
}

const price = (text: string) =>
  ['', 'N/A', '-'].includes(text.trim()) ? undefined : Number(text.replace(/[$,\s]/g, ''));

/** Rows of a CSV with exact duplicates dropped, by the whole line's text. */
function distinctRows(files: Files, name: string): Row[] {
  const seen = new Set<string>();
  return csv(files, name).filter((r) => {
    const key = JSON.stringify(r);
    return !seen.has(key) && seen.add(key) !== undefined;
  });
}

export const independentAnswers: Record<string, (files: Files) => string> = {
  'agg-total-revenue': (f) => total(csv(f, 'sales.csv').map(revenueOf)).toFixed(2),
  'agg-top-region': (f) => top(countBy(csv(f, 'sales.csv'), (r) => r.region!, revenueOf)),
  'agg-large-orders': (f) => String(csv(f, 'sales.csv').filter((r) => revenueOf(r) >= 500).length),
  'agg-customers-planner': (f) =>
    String(
      new Set(
        csv(f, 'sales.csv')
          .filter((r) => r.product === 'Planner Pro')
          .map((r) => r.customer_id),
      ).size,
    ),
  'join-customers-without-orders': (f) => {
    const buyers = new Set(csv(f, 'sales.csv').map((r) => r.customer_id));
    return String(csv(f, 'customers.csv').filter((c) => !buyers.has(c.customer_id)).length);
  },
  'join-top-country': (f) => {
    const country = new Map(csv(f, 'customers.csv').map((c) => [c.customer_id, c.country!]));
    return top(countBy(csv(f, 'sales.csv'), (r) => country.get(r.customer_id!)!, revenueOf));
  },
  'dates-busiest-month': (f) => top(countBy(csv(f, 'sales.csv'), (r) => r.date!.slice(0, 7))),
  'dates-top-weekday': (f) => top(countBy(csv(f, 'sales.csv'), (r) => weekday(r.date!), revenueOf)),
  'dates-mixed-formats-april': (f) =>
    String(csv(f, 'signups.csv').filter((r) => signupMonth(r.signup_date!) === '2023-04').length),
  'dates-open-at': (f) =>
    String(
      csv(f, 'tickets.csv').filter(
        (t) => t.opened_at! <= '2023-06-15 12:00' && (t.closed_at === '' || t.closed_at! > '2023-06-15 12:00'),
      ).length,
    ),
  'clean-exact-duplicates': (f) => {
    const lines = f.get('inventory.csv')!.text.trim().split('\n');
    return String(lines.length - new Set(lines).size);
  },
  'clean-missing-price': (f) =>
    String(distinctRows(f, 'inventory.csv').filter((r) => price(r.price!) === undefined).length),
  'clean-kitchen-skus': (f) =>
    String(distinctRows(f, 'inventory.csv').filter((r) => r.category!.trim().toLowerCase() === 'kitchen').length),
  'clean-stock-value': (f) =>
    total(distinctRows(f, 'inventory.csv').map((r) => (price(r.price!) ?? 0) * Number(r.quantity))).toFixed(2),
  'clean-sentinel-mean': (f) => {
    const values = csv(f, 'readings.csv')
      .filter((r) => r.sensor === 'S2' && r.temperature_c !== '' && r.temperature_c !== '-999')
      .map((r) => Number(r.temperature_c));
    return (total(values) / values.length).toFixed(2);
  },
  'stats-correlation': (f) => {
    const rows = csv(f, 'campaigns.csv');
    const [x, y] = [rows.map((r) => Number(r.ad_spend)), rows.map((r) => Number(r.revenue))];
    const n = rows.length;
    const sxy = n * total(x.map((v, i) => v * y[i]!)) - total(x) * total(y);
    const sxx = n * total(x.map((v) => v * v)) - total(x) ** 2;
    const syy = n * total(y.map((v) => v * v)) - total(y) ** 2;
    return (sxy / Math.sqrt(sxx * syy)).toFixed(3);
  },
  'stats-median-spend': (f) => {
    const spend = csv(f, 'campaigns.csv')
      .map((r) => Number(r.ad_spend))
      .sort((a, b) => a - b);
    const mid = spend.length / 2;
    return (spend.length % 2 ? spend[Math.floor(mid)]! : (spend[mid - 1]! + spend[mid]!) / 2).toFixed(2);
  },
  'excel-total-fy2023': (f) => {
    const rows = readWorkbook(f.get('budget.xlsx')!.data).get('FY2023')!.slice(1);
    return total(rows.map((r) => Number(r[2]!.value))).toFixed(2);
  },
  'excel-hired-2021': (f) => {
    const rows = readWorkbook(f.get('staff.xlsx')!.data).get('Employees')!.slice(1);
    if (!rows.every((r) => r[4]!.date)) throw new Error('hire dates are not date cells');
    return String(rows.filter((r) => serialToIso(Number(r[4]!.value)).startsWith('2021')).length);
  },
  'excel-largest-department': (f) => {
    const sheets = readWorkbook(f.get('staff.xlsx')!.data);
    const name = new Map(
      sheets
        .get('Departments')!
        .slice(1)
        .map((r) => [r[0]!.value, r[1]!.value]),
    );
    const counts = new Map<string, number>();
    for (const r of sheets.get('Employees')!.slice(1)) {
      const department = name.get(r[2]!.value)!;
      counts.set(department, (counts.get(department) ?? 0) + 1);
    }
    return top(counts);
  },
  'chart-units-by-region': (f) =>
    [
      ...countBy(
        csv(f, 'sales.csv'),
        (r) => r.region!,
        (r) => Number(r.units),
      ),
    ]
      .map(([k, v]) => `${k}=${v}`)
      .join(', '),
};
