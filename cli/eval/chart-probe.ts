import { numberMatches } from './answers.js';
import type { ChartCheck } from './task.js';

/**
 * What a chart task's figure really plots. The sandbox returns a figure as a PNG with its title and axis
 * labels, not its data, so before the turn a run the model does not see wraps matplotlib's
 * `Figure.savefig` (which renders every captured figure) to note the bars and lines of each figure it
 * renders; after the turn another such run prints the notes. Nothing is written to /mnt/data.
 */

/** Python that installs the recorder in the thread's interpreter (idempotent). */
export const INSTALL_PROBE = `
def __threadlab_eval_install():
    import matplotlib.figure as mf
    from matplotlib.patches import Rectangle
    if getattr(mf.Figure.savefig, "_threadlab_eval_figures", None) is not None:
        return
    original = mf.Figure.savefig
    figures = []

    def numbers(values):
        out = []
        for v in list(values)[:2000]:
            try:
                out.append(float(v))
            except (TypeError, ValueError):
                return None
        return out

    def describe(fig):
        axes = []
        for ax in fig.get_axes():
            bars = [[float(p.get_x()), float(p.get_y()), float(p.get_width()), float(p.get_height())]
                    for p in ax.patches[:2000] if isinstance(p, Rectangle)]
            lines = [ys for ys in (numbers(line.get_ydata()) for line in ax.lines[:50]) if ys]
            axes.append({"bars": bars, "lines": lines})
        return {"axes": axes}

    def savefig(self, *args, **kwargs):
        if len(figures) < 50:
            try:
                figures.append(describe(self))
            except Exception as exc:
                figures.append({"error": repr(exc)})
        return original(self, *args, **kwargs)

    savefig._threadlab_eval_figures = figures
    mf.Figure.savefig = savefig

__threadlab_eval_install()
del __threadlab_eval_install
`;

const MARK = 'THREADLAB_EVAL_FIGURES=';

/** Python that prints the recorded figures as one JSON line. */
export const READ_PROBE = `
import json as __threadlab_json, matplotlib.figure as __threadlab_mf
print(${JSON.stringify(MARK)} + __threadlab_json.dumps(getattr(__threadlab_mf.Figure.savefig, "_threadlab_eval_figures", None)))
del __threadlab_json, __threadlab_mf
`;

/** One rendered figure: per axes, its rectangles (x, y, width, height) and its lines' y values. */
export interface FigureRecord {
  axes?: { bars: number[][]; lines: number[][] }[];
  error?: string;
}

/** The figures READ_PROBE printed, or undefined when the recorder was gone (the interpreter restarted). */
export function parseFigures(stdout: string): FigureRecord[] | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith(MARK));
  if (!line) return undefined;
  const parsed = JSON.parse(line.slice(MARK.length)) as FigureRecord[] | null;
  return parsed ?? undefined;
}

/** Every series a figure shows: bar heights left to right, bar widths bottom to top, each line's y values. */
function seriesOf(figure: FigureRecord): number[][] {
  return (figure.axes ?? []).flatMap((ax) => {
    const byX = [...ax.bars].sort((a, b) => a[0]! - b[0]!).map((b) => b[3]!);
    const byY = [...ax.bars].sort((a, b) => a[1]! - b[1]!).map((b) => b[2]!);
    return [...(ax.bars.length > 0 ? [byX, byY] : []), ...ax.lines];
  });
}

function sameSeries(check: ChartCheck, series: number[]): boolean {
  if (series.length !== check.values.length) return false;
  const [given, want] = check.ordered
    ? [series, check.values]
    : [[...series].sort((a, b) => a - b), [...check.values].sort((a, b) => a - b)];
  return given.every((v, i) => numberMatches(v, want[i]!, check.decimals));
}

/** Whether any rendered figure plots the expected series, and why not. */
export function figureVerdict(
  check: ChartCheck,
  figures: FigureRecord[] | undefined,
): { correct: boolean; reason?: string } {
  if (figures === undefined) return { correct: false, reason: 'figure data unavailable (the interpreter restarted)' };
  if (figures.length === 0) return { correct: false, reason: 'no figure was drawn' };
  if (figures.some((f) => seriesOf(f).some((s) => sameSeries(check, s)))) return { correct: true };
  return { correct: false, reason: 'no figure plots the expected values' };
}
