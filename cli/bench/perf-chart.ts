import { z } from 'zod';
import { ThreadlabError } from '../../src/domain/errors.js';

/** Most figures one chart draws, and most bars (series) per figure: a chart past that is no longer read. */
export const PERF_CHART_MAX_FIGURES = 40;
export const PERF_CHART_MAX_SERIES = 6;

const figureSchema = z.strictObject({
  /** What was measured, as the chart labels it (one line, at most 64 characters). */
  label: z.string().trim().min(1).max(64),
  /** The bench that prints it, e.g. `sandbox (e)`. */
  bench: z.string().trim().min(1).max(40),
  unit: z.enum(['ms', 's', 'MiB', 'GiB', '×', 'msg/s']),
  /** Measured value per series (`runc`, `gVisor`, `in-process`…), in `unit`; the p50 unless the label says. */
  values: z
    .record(z.string().trim().min(1).max(20), z.number().finite().nonnegative())
    .refine((v) => Object.keys(v).length >= 1 && Object.keys(v).length <= PERF_CHART_MAX_SERIES, {
      message: `between 1 and ${PERF_CHART_MAX_SERIES} series`,
    }),
  /** The target the figure is held to, in `unit` (lower is better unless `higherIsBetter`). */
  target: z.number().finite().positive().optional(),
  higherIsBetter: z.boolean().optional(),
});

/** docs/performance.json: the figures of the performance page, as measured. */
export const perfFiguresSchema = z.strictObject({
  /** When and where they were measured, printed under the title. */
  measured: z.string().trim().min(1).max(120),
  figures: z.array(figureSchema).min(1).max(PERF_CHART_MAX_FIGURES),
});

export type PerfFigures = z.infer<typeof perfFiguresSchema>;
export type PerfFigure = PerfFigures['figures'][number];

/** Parses the figures' JSON text; a bad file is a `config_invalid` error naming the field and what is wrong. */
export function parsePerfFigures(text: string, source: string): PerfFigures {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ThreadlabError('config_invalid', `${source} is not JSON: ${(err as Error).message}`, { isPolicy: true });
  }
  const parsed = perfFiguresSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ThreadlabError('config_invalid', `${source}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`, {
    isPolicy: true,
  });
}

// Series keep one colour across figures; one not listed takes the next spare.
const SERIES_COLOURS: Record<string, string> = { runc: '#2f6fb0', gVisor: '#d9822b' };
const SPARE_COLOURS = ['#3a9a5b', '#8e5fb8', '#b8475f', '#6b7a8f'];

/** Layout in px. */
const WIDTH = 1000;
const LABEL_W = 420;
const BAR_H = 14;
const BAR_GAP = 3;
const ROW_GAP = 14;
const TOP = 86;
const VALUE_W = 90;

const escapeXml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** 1.1 ms, 566 ms, 1.44 GiB, 1.06×: three significant figures at most, as the table prints them. */
export function formatFigure(value: number, unit: string): string {
  if (unit === '×') return `${value.toFixed(2)}×`;
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${Number(value.toFixed(digits))} ${unit}`;
}

function seriesColours(figures: PerfFigure[]): Map<string, string> {
  const colours = new Map<string, string>();
  let spare = 0;
  for (const f of figures)
    for (const name of Object.keys(f.values))
      if (!colours.has(name)) colours.set(name, SERIES_COLOURS[name] ?? SPARE_COLOURS[spare++ % SPARE_COLOURS.length]!);
  return colours;
}

/**
 * Draws the figures as an SVG: one row per figure, one bar per series, each row on its own scale (the units
 * differ) from zero to the larger of its values and its target, the target a dashed line. Deterministic: the same
 * figures give the same bytes, so the committed chart can be checked against its JSON.
 */
export function drawPerfChart(data: PerfFigures): string {
  const colours = seriesColours(data.figures);
  const plotW = WIDTH - LABEL_W - VALUE_W - 20;
  const parts: string[] = [];
  let y = TOP;
  for (const f of data.figures) {
    const entries = Object.entries(f.values);
    const rowH = entries.length * (BAR_H + BAR_GAP) - BAR_GAP;
    const max = Math.max(...entries.map(([, v]) => v), f.target ?? 0) || 1;
    const x = (v: number): number => LABEL_W + (v / max) * plotW;
    parts.push(
      `<text x="${LABEL_W - 10}" y="${y + rowH / 2 - 2}" text-anchor="end" class="label">${escapeXml(f.label)}</text>`,
      `<text x="${LABEL_W - 10}" y="${y + rowH / 2 + 11}" text-anchor="end" class="bench">threadlab bench ${escapeXml(f.bench)}</text>`,
    );
    entries.forEach(([name, value], i) => {
      const by = y + i * (BAR_H + BAR_GAP);
      const w = Math.max(1, x(value) - LABEL_W);
      parts.push(
        `<rect x="${LABEL_W}" y="${by}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${colours.get(name)}"><title>${escapeXml(`${name}: ${formatFigure(value, f.unit)}`)}</title></rect>`,
        `<text x="${(LABEL_W + w + 4).toFixed(1)}" y="${by + BAR_H - 3}" class="value">${escapeXml(formatFigure(value, f.unit))}</text>`,
      );
    });
    if (f.target !== undefined) {
      const tx = x(f.target).toFixed(1);
      const word = f.higherIsBetter ? '≥' : '≤';
      parts.push(
        `<line x1="${tx}" x2="${tx}" y1="${y - 4}" y2="${y + rowH + 4}" class="target"/>`,
        `<text x="${tx}" y="${y + rowH + 14}" text-anchor="middle" class="tlabel">target ${word} ${escapeXml(formatFigure(f.target, f.unit))}</text>`,
      );
    }
    y += rowH + ROW_GAP + (f.target !== undefined ? 10 : 0);
  }
  const legend = [...colours].map(([name, colour], i) => {
    const lx = 20 + i * 120;
    return `<rect x="${lx}" y="54" width="12" height="12" fill="${colour}"/><text x="${lx + 17}" y="64" class="value">${escapeXml(name)}</text>`;
  });
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">`,
    '<style>.label{font-size:12px;fill:#222}.bench{font-size:10px;fill:#777}.value{font-size:11px;fill:#333}' +
      '.tlabel{font-size:9px;fill:#a33}.target{stroke:#a33;stroke-width:1.5;stroke-dasharray:4 3}' +
      '.title{font-size:16px;font-weight:600;fill:#111}.sub{font-size:11px;fill:#666}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="20" y="24" class="title">Threadlab performance (p50; each row on its own scale)</text>`,
    `<text x="20" y="42" class="sub">${escapeXml(data.measured)}</text>`,
    ...legend,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
