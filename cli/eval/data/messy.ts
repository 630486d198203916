import { addDays } from '../calendar.js';
import { csvFile, type EvalFile } from '../files.js';
import { Random } from '../random.js';
import { round } from '../stats.js';

/** Files as people actually export them: duplicates, stray spaces, mixed case, mixed number formats, gaps. */

export const CATEGORIES = ['Tools', 'Garden', 'Kitchen', 'Office', 'Lighting'] as const;
const ITEMS = ['Hammer', 'Hose', 'Kettle', 'Stapler', 'Lamp', 'Saw', 'Rake', 'Pan', 'Binder', 'Bulb', 'Drill'];
const MISSING = ['', 'N/A', '-'] as const;

export interface StockItem {
  sku: string;
  item: string;
  category: (typeof CATEGORIES)[number];
  /** Undefined when the file gives no usable price. */
  price: number | undefined;
  quantity: number;
  /** The row as written: category and price as text. */
  written: { category: string; price: string };
}

export interface Inventory {
  items: StockItem[];
  /** The file's rows in order: each item once, some twice (exact copies). */
  rows: StockItem[];
}

function writeCategory(rng: Random, category: string): string {
  const cased = rng.weighted([category, category.toLowerCase(), category.toUpperCase()], [6, 2, 1]);
  return rng.weighted([cased, ` ${cased}`, `${cased} `, `  ${cased}  `], [6, 1, 1, 1]);
}

function writePrice(rng: Random, price: number): string {
  const fixed = price.toFixed(2);
  const grouped = price >= 1000 ? fixed.replace(/^(\d+)(\d{3})\./, '$1,$2.') : fixed;
  return rng.weighted([fixed, `$${grouped}`, grouped, ` ${fixed} `, String(price)], [4, 3, 2, 1, 2]);
}

export function inventoryData(seed = 77): Inventory {
  const rng = new Random(seed);
  const items: StockItem[] = Array.from({ length: 60 }, (_, i) => {
    const category = rng.pick(CATEGORIES);
    const price = rng.chance(0.12)
      ? undefined
      : round(rng.chance(0.1) ? 1000 + rng.next() * 900 : 2 + rng.next() * 180, 2);
    return {
      sku: `SKU-${1001 + i}`,
      item: `${rng.pick(ITEMS)} ${String.fromCharCode(65 + rng.int(0, 25))}${rng.int(1, 9)}`,
      category,
      price,
      quantity: rng.int(0, 150),
      written: {
        category: writeCategory(rng, category),
        price: price === undefined ? rng.pick(MISSING) : writePrice(rng, price),
      },
    };
  });
  const rows = [...items];
  for (const copy of rng.shuffle(items).slice(0, 7)) rows.splice(rng.int(rows.indexOf(copy) + 1, rows.length), 0, copy);
  return { items, rows };
}

export function inventoryCsv(inventory: Inventory): EvalFile {
  return csvFile('inventory.csv', {
    columns: ['sku', 'item', 'category', 'price', 'quantity'],
    rows: inventory.rows.map((r) => [r.sku, r.item, r.written.category, r.written.price, r.quantity]),
  });
}

export interface Reading {
  time: string;
  sensor: string;
  /** Undefined for a blank; -999 is the logger's "no reading" value. */
  temperature: number | undefined;
}

export function readingsData(seed = 19): Reading[] {
  const rng = new Random(seed);
  const readings: Reading[] = [];
  for (let hour = 0; hour < 96; hour += 1) {
    for (const [sensor, base] of [
      ['S1', 20],
      ['S2', 22.5],
      ['S3', 18],
    ] as const) {
      const value = rng.chance(0.06) ? -999 : rng.chance(0.04) ? undefined : round(rng.normal(base, 1.8), 1);
      const time = `${addDays('2023-11-06', Math.floor(hour / 24))} ${String(hour % 24).padStart(2, '0')}:00`;
      readings.push({ time, sensor, temperature: value });
    }
  }
  return readings;
}

export function readingsCsv(readings: Reading[]): EvalFile {
  return csvFile('readings.csv', {
    columns: ['time', 'sensor', 'temperature_c'],
    rows: readings.map((r) => [r.time, r.sensor, r.temperature ?? null]),
  });
}

export interface ContactVersion {
  id: string;
  email: string;
  city: string;
  updatedAt: string;
}

export function contactsData(seed = 5150): ContactVersion[] {
  const rng = new Random(seed);
  const cities = ['Lyon', 'Paris', 'Lille', 'Nantes', 'Bordeaux'];
  const rows: ContactVersion[] = [];
  for (let i = 0; i < 50; i += 1) {
    const id = `P${200 + i}`;
    let day = addDays('2022-01-01', rng.int(0, 300));
    for (let v = rng.int(1, 3); v > 0; v -= 1) {
      rows.push({ id, email: `contact${200 + i}@example.org`, city: rng.pick(cities), updatedAt: day });
      day = addDays(day, rng.int(5, 200));
    }
  }
  return rng.shuffle(rows);
}

export function contactsCsv(rows: ContactVersion[]): EvalFile {
  return csvFile('contacts.csv', {
    columns: ['contact_id', 'email', 'city', 'updated_at'],
    rows: rows.map((r) => [r.id, r.email, r.city, r.updatedAt]),
  });
}
