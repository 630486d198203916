import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { ThreadlabError } from '../../src/domain/errors.js';
import { drawPerfChart, parsePerfFigures } from './perf-chart.js';

/** Where `threadlab bench chart` reads and writes by default (relative to the working directory, a checkout). */
export const PERF_FIGURES_PATH = 'docs/performance.json';
export const PERF_CHART_PATH = 'docs/images/performance.svg';

/** The figures file is a few KB; anything past this is not ours. */
const MAX_FIGURES_BYTES = 256 * 1024;

/**
 * `threadlab bench chart`: reads the measured figures (`dataPath`, default docs/performance.json), draws them
 * and writes the SVG to `svgPath` (default docs/images/performance.svg). Returns what it wrote, for the log line.
 */
export function writePerfChart(o: { dataPath?: string; svgPath?: string }): { svgPath: string; figures: number } {
  const dataPath = o.dataPath ?? PERF_FIGURES_PATH;
  const svgPath = o.svgPath ?? PERF_CHART_PATH;
  let size: number;
  try {
    size = statSync(dataPath).size;
  } catch (err) {
    throw new ThreadlabError('config_invalid', `Cannot read ${dataPath}: ${(err as Error).message}`, {
      cause: err,
      isPolicy: true,
    });
  }
  if (size > MAX_FIGURES_BYTES)
    throw new ThreadlabError('config_invalid', `${dataPath} is ${size} bytes; figures files are at most 256 KiB.`, {
      isPolicy: true,
    });
  const figures = parsePerfFigures(readFileSync(dataPath, 'utf8'), dataPath);
  writeFileSync(svgPath, drawPerfChart(figures));
  return { svgPath, figures: figures.figures.length };
}
