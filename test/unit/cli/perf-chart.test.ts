import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  drawPerfChart,
  formatFigure,
  parsePerfFigures,
  PERF_CHART_MAX_FIGURES,
  type PerfFigures,
} from '../../../cli/bench/perf-chart.js';
import { writePerfChart } from '../../../cli/bench/perf-chart-file.js';
import { benchCommand } from '../../../cli/commands/bench.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'perf-chart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const figures: PerfFigures = {
  measured: 'here, today',
  figures: [
    { label: 'first run', bench: 'sandbox', unit: 'ms', values: { runc: 2, gVisor: 4 }, target: 50 },
    { label: 'save <100 MB> & "restore"', bench: 'durable', unit: 's', values: { runc: 0.5, gVisor: 1 } },
  ],
};

/** The bars of a drawn chart: width per title, in drawing order. */
const bars = (svg: string) =>
  [
    ...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="14" fill="[^"]+"><title>([^<]+)<\/title>/g),
  ].map((m) => ({ width: Number(m[1]), title: m[2] }));

describe('threadlab bench chart', () => {
  it('draws one bar per value, each row scaled to its largest value or its target', () => {
    const drawn = bars(drawPerfChart(figures));
    expect(drawn.map((b) => b.title)).toEqual(['runc: 2 ms', 'gVisor: 4 ms', 'runc: 0.5 s', 'gVisor: 1 s']);
    // The first row's scale is its target (50 ms): 2 and 4 ms are 4 % and 8 % of it.
    expect(drawn[1]!.width / drawn[0]!.width).toBeCloseTo(2, 1);
    expect(drawn[3]!.width / drawn[1]!.width).toBeCloseTo(12.5, 0);
    expect(drawn[3]!.width / drawn[2]!.width).toBeCloseTo(2, 1);
    expect(drawPerfChart(figures)).toContain('target ≤ 50 ms');
  });

  it('escapes what the figures file says, so a label cannot add markup', () => {
    const svg = drawPerfChart(figures);
    expect(svg).toContain('save &lt;100 MB&gt; &amp; &quot;restore&quot;');
    expect(svg).not.toContain('<100 MB>');
  });

  it('refuses a bad file naming the field, and a file past the bound of figures', () => {
    expect(() => parsePerfFigures('{', 'f.json')).toThrow(/f\.json is not JSON/);
    const bad = { ...figures, figures: [{ ...figures.figures[0], values: { runc: -1 } }] };
    expect(() => parsePerfFigures(JSON.stringify(bad), 'f.json')).toThrow(/f\.json: figures\.0\.values\.runc/);
    const many = { ...figures, figures: Array.from({ length: PERF_CHART_MAX_FIGURES + 1 }, () => figures.figures[0]) };
    expect(() => parsePerfFigures(JSON.stringify(many), 'f.json')).toThrow(/f\.json: figures/);
    const atBound = { ...figures, figures: Array.from({ length: PERF_CHART_MAX_FIGURES }, () => figures.figures[0]) };
    expect(parsePerfFigures(JSON.stringify(atBound), 'f.json').figures).toHaveLength(PERF_CHART_MAX_FIGURES);
  });

  it('writes the SVG through the command, and says what is wrong with a missing file', async () => {
    const data = join(dir, 'figures.json');
    const svg = join(dir, 'chart.svg');
    writeFileSync(data, JSON.stringify(figures));
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: () => undefined, env: {} };
    expect(await benchCommand.run(['chart', '--data', data, '--svg', svg], io)).toBe(0);
    expect(out.join('')).toBe(`wrote ${svg}: 2 figures\n`);
    expect(readFileSync(svg, 'utf8')).toBe(drawPerfChart(figures));
    expect(() => writePerfChart({ dataPath: join(dir, 'none.json'), svgPath: svg })).toThrow(
      /Cannot read .*none\.json/,
    );
  });

  it('keeps docs/images/performance.svg drawn from docs/performance.json, whose values the table states', () => {
    const json = parsePerfFigures(readFileSync(join(root, 'docs/performance.json'), 'utf8'), 'docs/performance.json');
    expect(readFileSync(join(root, 'docs/images/performance.svg'), 'utf8')).toBe(drawPerfChart(json));
    const page = readFileSync(join(root, 'docs/performance.md'), 'utf8');
    const table = page.slice(0, page.indexOf('## Notes'));
    for (const f of json.figures)
      for (const [series, value] of Object.entries(f.values)) {
        const written = [
          value.toLocaleString('en-US'),
          value.toFixed(1),
          value.toFixed(2),
          formatFigure(value, f.unit),
        ];
        expect(
          written.some((w) => table.includes(w)),
          `${f.label} (${series}: ${value})`,
        ).toBe(true);
      }
  });
});
