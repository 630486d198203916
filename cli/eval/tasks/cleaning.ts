import {
  contactsCsv,
  contactsData,
  inventoryCsv,
  inventoryData,
  readingsCsv,
  readingsData,
  type ContactVersion,
} from '../data/messy.js';
import { mean, sum } from '../stats.js';
import { answerOf, defineTask, type EvalTask } from '../task.js';

const INVENTORY_INTRO =
  'inventory.csv is a stock list exported by hand: some rows are exact copies of an earlier row, categories have ' +
  'stray spaces and mixed case, and prices are written in several formats (a missing price is empty, "N/A" or "-").';

/** Questions that need the data cleaned first. */
export const cleaningTasks: EvalTask[] = [
  defineTask('clean-exact-duplicates', 'cleaning', () => {
    const inv = inventoryData();
    return {
      files: [inventoryCsv(inv)],
      question: `${INVENTORY_INTRO} How many rows are exact duplicates of an earlier row?`,
      expected: answerOf.number(inv.rows.length - inv.items.length, 0),
    };
  }),
  defineTask('clean-missing-price', 'cleaning', () => {
    const inv = inventoryData();
    return {
      files: [inventoryCsv(inv)],
      question: `${INVENTORY_INTRO} How many different SKUs have no usable price?`,
      expected: answerOf.number(inv.items.filter((i) => i.price === undefined).length, 0),
    };
  }),
  defineTask('clean-kitchen-skus', 'cleaning', () => {
    const inv = inventoryData();
    return {
      files: [inventoryCsv(inv)],
      question: `${INVENTORY_INTRO} Ignoring case and surrounding spaces, how many different SKUs are in the Kitchen category?`,
      expected: answerOf.number(inv.items.filter((i) => i.category === 'Kitchen').length, 0),
    };
  }),
  defineTask('clean-stock-value', 'cleaning', () => {
    const inv = inventoryData();
    const priced = inv.items.filter((i) => i.price !== undefined);
    return {
      files: [inventoryCsv(inv)],
      question:
        `${INVENTORY_INTRO} Counting each duplicated row once and leaving out rows without a usable price, what is ` +
        'the total stock value (price × quantity)?',
      expected: answerOf.number(sum(priced.map((i) => i.price! * i.quantity)), 2),
    };
  }),
  defineTask('clean-tools-mean-price', 'cleaning', () => {
    const inv = inventoryData();
    const tools = inv.items.filter((i) => i.category === 'Tools' && i.price !== undefined);
    return {
      files: [inventoryCsv(inv)],
      question:
        `${INVENTORY_INTRO} Counting each duplicated row once, what is the mean price of the SKUs in the Tools ` +
        'category that have a usable price?',
      expected: answerOf.number(mean(tools.map((i) => i.price!)), 2),
    };
  }),
  defineTask('clean-sentinel-mean', 'cleaning', () => {
    const readings = readingsData();
    const valid = readings.filter((r) => r.sensor === 'S2' && r.temperature !== undefined && r.temperature !== -999);
    return {
      files: [readingsCsv(readings)],
      question:
        'readings.csv has hourly temperatures of three sensors. The logger writes -999 when it has no reading, and ' +
        'some cells are empty. What is the mean temperature of sensor S2 over its real readings?',
      expected: answerOf.number(mean(valid.map((r) => r.temperature!)), 2),
    };
  }),
  defineTask('clean-latest-contact', 'cleaning', () => {
    const rows = contactsData();
    const latest = new Map<string, ContactVersion>();
    for (const row of rows) if ((latest.get(row.id)?.updatedAt ?? '') < row.updatedAt) latest.set(row.id, row);
    return {
      files: [contactsCsv(rows)],
      question:
        'contacts.csv has several rows for some contacts, one per change (updated_at). Keeping only the most ' +
        'recent row of each contact_id, how many contacts live in Lyon?',
      expected: answerOf.number([...latest.values()].filter((r) => r.city === 'Lyon').length, 0),
    };
  }),
];
