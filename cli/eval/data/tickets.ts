import { addDays, epochMs, isoDate, MONTH_NAMES, timeText } from '../calendar.js';
import { csvFile, type EvalFile } from '../files.js';
import { Random } from '../random.js';

/** Support tickets with open and close times, and sign-ups whose dates are written three ways. */

export interface Ticket {
  id: string;
  openedAt: string;
  /** Empty while the ticket is open. */
  closedAt: string | null;
  priority: 'Low' | 'Medium' | 'High';
}

/** The moment of the "open at" question; no ticket opens or closes exactly then. */
export const OPEN_AT = '2023-06-15 12:00';

export function ticketsData(seed = 611): Ticket[] {
  const rng = new Random(seed);
  const start = epochMs('2023-04-01 00:00');
  const span = epochMs('2023-08-01 00:00') - start;
  const avoid = (ms: number) => (timeText(ms) === OPEN_AT ? ms + 60_000 : ms);
  const tickets: Ticket[] = [];
  for (let i = 0; i < 150; i += 1) {
    const opened = avoid(start + Math.floor((rng.next() * span) / 60_000) * 60_000);
    const hours = Math.exp(rng.normal(3, 1.1));
    const closed = rng.chance(0.85) ? avoid(opened + Math.max(1, Math.round(hours * 60)) * 60_000) : undefined;
    tickets.push({
      id: `T-${4100 + i}`,
      openedAt: timeText(opened),
      closedAt: closed === undefined ? null : timeText(closed),
      priority: rng.weighted(['Low', 'Medium', 'High'] as const, [5, 4, 2]),
    });
  }
  return tickets.sort((a, b) => a.openedAt.localeCompare(b.openedAt));
}

export function ticketsCsv(tickets: Ticket[]): EvalFile {
  return csvFile('tickets.csv', {
    columns: ['ticket_id', 'opened_at', 'closed_at', 'priority'],
    rows: tickets.map((t) => [t.id, t.openedAt, t.closedAt, t.priority]),
  });
}

export interface Signup {
  id: number;
  /** The date as the file writes it. */
  written: string;
  date: string;
  plan: string;
}

/** `YYYY-MM-DD`, `DD/MM/YYYY` or `Month D, YYYY`. */
function writeDate(iso: string, style: number): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  if (style === 0) return iso;
  if (style === 1) return `${String(d).padStart(2, '0')}/${String(m).padStart(2, '0')}/${y}`;
  return `${MONTH_NAMES[m - 1]} ${d}, ${y}`;
}

export function signupsData(seed = 404): Signup[] {
  const rng = new Random(seed);
  const first = isoDate(2023, 2, 1);
  return Array.from({ length: 120 }, (_, i) => {
    const date = addDays(first, rng.int(0, 149));
    return {
      id: 501 + i,
      date,
      written: writeDate(date, rng.weighted([0, 1, 2], [5, 3, 2])),
      plan: rng.weighted(['Free', 'Team', 'Business'], [6, 3, 1]),
    };
  });
}

export function signupsCsv(signups: Signup[]): EvalFile {
  return csvFile('signups.csv', {
    columns: ['signup_id', 'signup_date', 'plan'],
    rows: signups.map((s) => [s.id, s.written, s.plan]),
  });
}
