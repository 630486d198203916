import type { ArtifactRenderer } from '../../src/ports/artifact-renderer.js';
import type { Sandbox } from '../../src/ports/sandbox.js';
import { displayImage } from '../../src/replies/reply-media.js';
import { round, stats, type BenchStats } from './bench-stats.js';

/** The figure both ways: a small line chart with a title, as users ask for. */
const FIGURE = 'import matplotlib.pyplot as plt\nplt.plot([1, 3, 2, 4]); plt.title("bench")';
/** Left open, the runner captures it as a PNG display. */
const CAPTURED = FIGURE;
/** Rendered and saved inside the sandbox the way the capture saves it, then closed: nothing comes back. */
const INSIDE = `${FIGURE}\nimport io\nplt.gcf().savefig(io.BytesIO(), format="png", bbox_inches="tight"); plt.close("all")`;

export interface ChartLatency {
  /** The figure rendered and saved inside the sandbox: a run that sends nothing back. */
  inside: BenchStats;
  /** The same figure end to end: the run, its PNG captured and sent back, then rendered for chat as posted. */
  endToEnd: BenchStats;
  /** endToEnd / inside, on p50. */
  ratio: number;
}

/**
 * (d) A chart end to end against the same figure rendered inside the sandbox, sampled in alternation on one warm
 * session so both see the same machine. The end-to-end sample stops when the image a reply would post is ready.
 */
export async function benchChartLatency(
  sandbox: Sandbox,
  o: { key: string; renderer: ArtifactRenderer; maxImageDimensionPx: number; iterations: number },
): Promise<ChartLatency> {
  const inside: number[] = [];
  const endToEnd: number[] = [];
  const once = async (code: string) => {
    const result = await sandbox.run(o.key, { language: 'python', code });
    if (result.status !== 'ok') throw new Error(`chart bench run failed: ${result.error?.value ?? result.status}`);
    return result;
  };
  const sample = async () => {
    let started = performance.now();
    const saved = await once(INSIDE);
    inside.push(performance.now() - started);
    if (saved.displays.length > 0) throw new Error('chart bench: the figure rendered inside came back');
    started = performance.now();
    const captured = await once(CAPTURED);
    const figure = captured.displays.map((d, i) => displayImage(d, i + 1)).find((input) => input !== undefined);
    if (!figure) throw new Error('chart bench: the run sent back no figure');
    await o.renderer.renderImage(figure, { maxImageDimensionPx: o.maxImageDimensionPx });
    endToEnd.push(performance.now() - started);
  };
  await sample(); // warm-up: the first figure loads matplotlib's fonts
  inside.length = 0;
  endToEnd.length = 0;
  for (let i = 0; i < o.iterations; i++) await sample();
  const a = stats(inside);
  const b = stats(endToEnd);
  return { inside: a, endToEnd: b, ratio: round(b.p50Ms / a.p50Ms) };
}
