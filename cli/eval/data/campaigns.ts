import { csvFile, type EvalFile } from '../files.js';
import { Random } from '../random.js';
import { round } from '../stats.js';

/** Marketing campaigns: spend, visits, conversions and revenue, with a linear trend, noise and a few outliers. */

export const CHANNELS = ['Display', 'Email', 'Search', 'Social'] as const;

export interface Campaign {
  id: string;
  channel: (typeof CHANNELS)[number];
  adSpend: number;
  visits: number;
  conversions: number;
  revenue: number;
}

const VISITS_PER_EURO = { Display: 1.1, Email: 2.4, Search: 1.6, Social: 1.9 };
const CONVERSION = { Display: 0.012, Email: 0.035, Search: 0.028, Social: 0.017 };

export function campaignsData(seed = 31337): Campaign[] {
  const rng = new Random(seed);
  return Array.from({ length: 120 }, (_, i) => {
    const channel = rng.pick(CHANNELS);
    const adSpend = round(200 + rng.next() * 4800, 2);
    const visits = Math.round(adSpend * VISITS_PER_EURO[channel] * Math.exp(rng.normal(0, 0.25)));
    const conversions = Math.max(0, Math.round(visits * CONVERSION[channel] * Math.exp(rng.normal(0, 0.3))));
    const outlier = i % 40 === 17 ? 15_000 : 0;
    return {
      id: `CMP-${String(i + 1).padStart(3, '0')}`,
      channel,
      adSpend,
      visits,
      conversions,
      revenue: round(Math.max(0, 3.2 * adSpend + rng.normal(0, 2500) + outlier), 2),
    };
  });
}

export function campaignsCsv(campaigns: Campaign[]): EvalFile {
  return csvFile('campaigns.csv', {
    columns: ['campaign', 'channel', 'ad_spend', 'visits', 'conversions', 'revenue'],
    rows: campaigns.map((c) => [c.id, c.channel, c.adSpend, c.visits, c.conversions, c.revenue]),
  });
}
