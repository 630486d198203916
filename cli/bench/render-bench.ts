import type { ArtifactRenderer } from '../../src/ports/artifact-renderer.js';
import { formatCount } from '../../src/domain/text/format.js';

export interface BenchRenderOptions {
  /** Chart images (PNG) as code produces them, e.g. from `generateSandboxCharts`. */
  images: Buffer[];
  renderer: ArtifactRenderer;
  maxImageDimensionPx: number;
  /** Receives each printed line. */
  out: (line: string) => void;
}

export interface BenchRenderResult {
  count: number;
  bytesBefore: number;
  bytesAfter: number;
  /** Share of bytes saved, 0–100. */
  savedPercent: number;
  /** Mean wall time per image. */
  msPerImage: number;
  medianMs: number;
  perImage: { bytesBefore: number; bytesAfter: number; ms: number; width?: number; height?: number; mime: string }[];
}

/**
 * Renders each image as a reply would, one at a time, and prints bytes before and after, the share saved and
 * milliseconds per image. One untimed warm-up render comes first so library start-up is not counted.
 */
export async function benchRender(options: BenchRenderOptions): Promise<BenchRenderResult> {
  const { images, renderer, maxImageDimensionPx, out } = options;
  if (images.length === 0) throw new RangeError('benchRender needs at least one image');
  await renderer.renderImage({ name: 'warm-up.png', data: images[0]! }, { maxImageDimensionPx });
  out(`Rendering ${images.length} images (max ${maxImageDimensionPx} px):`);
  out('    #  size out     bytes before →  bytes after   saved      ms  format');
  const perImage: BenchRenderResult['perImage'] = [];
  for (const [i, data] of images.entries()) {
    const started = performance.now();
    const img = await renderer.renderImage(
      { name: `chart-${i + 1}.png`, data, alt: `Chart ${i + 1}` },
      { maxImageDimensionPx },
    );
    const ms = performance.now() - started;
    perImage.push({
      bytesBefore: data.length,
      bytesAfter: img.data.length,
      ms,
      width: img.width,
      height: img.height,
      mime: img.mime,
    });
    const dims = img.width && img.height ? `${img.width}×${img.height}` : '?';
    out(
      `  ${String(i + 1).padStart(3)}  ${dims.padEnd(10)} ${formatCount(data.length).padStart(13)} → ${formatCount(img.data.length).padStart(12)}  ${percent(data.length, img.data.length).padStart(6)}  ${ms.toFixed(1).padStart(6)}  ${img.mime}`,
    );
  }
  const bytesBefore = perImage.reduce((n, p) => n + p.bytesBefore, 0);
  const bytesAfter = perImage.reduce((n, p) => n + p.bytesAfter, 0);
  const times = perImage.map((p) => p.ms).sort((a, b) => a - b);
  const result: BenchRenderResult = {
    count: images.length,
    bytesBefore,
    bytesAfter,
    savedPercent: bytesBefore === 0 ? 0 : (100 * (bytesBefore - bytesAfter)) / bytesBefore,
    msPerImage: times.reduce((a, b) => a + b, 0) / times.length,
    medianMs: times[Math.floor(times.length / 2)]!,
    perImage,
  };
  out(
    `Total: ${formatCount(bytesBefore)} B → ${formatCount(bytesAfter)} B, saved ${result.savedPercent.toFixed(1)}%; ` +
      `${result.msPerImage.toFixed(1)} ms per image (median ${result.medianMs.toFixed(1)} ms)`,
  );
  return result;
}

function percent(before: number, after: number): string {
  return before === 0 ? '–' : `${((100 * (before - after)) / before).toFixed(1)}%`;
}
