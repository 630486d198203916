import { randomUUID } from 'node:crypto';
import Docker from 'dockerode';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { psnrDb } from '../../../adapters/render/encode.js';
import { generateSandboxCharts } from '../../../cli/bench/sandbox-charts.js';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import { benchRender } from '../../../cli/bench/render-bench.js';
import { fitImages } from '../../../src/replies/fit-images.js';

const docker = new Docker();
const names: string[] = [];
const renderer = new SharpArtifactRenderer();
/** Re-encodes every image, however small (THREADLAB_REPLY_KEEP_PNG_KB=0). */
const reencoding = new SharpArtifactRenderer({ keepPngBytes: 0 });

/** THREADLAB_TEST_SANDBOX_IMAGE (set by the global setup), else the newest local threadlab-sandbox tag. */
async function sandboxImage(): Promise<string> {
  const fromEnv = process.env.THREADLAB_TEST_SANDBOX_IMAGE;
  if (fromEnv) return fromEnv;
  const images = await docker.listImages({ filters: { reference: ['threadlab-sandbox'] } });
  const tagged = images
    .sort((a, b) => b.Created - a.Created)
    .flatMap((i) => i.RepoTags ?? [])
    .find((t) => t.startsWith('threadlab-sandbox:'));
  if (!tagged)
    throw new Error('no threadlab-sandbox image: run `threadlab sandbox build` or the integration global setup');
  return tagged;
}

function containerName(): string {
  const name = `threadlab-test-replies-${randomUUID()}`;
  names.push(name);
  return name;
}

/** Charts are matplotlib's defaults at dpi 100, 150, 200 and a 12×8 in figure at 200 dpi. */
const EXPECTED_SIZES = [
  [640, 480],
  [960, 720],
  [1280, 960],
  [640, 480],
  [960, 720],
  [1280, 960],
  [2400, 1600],
];

describe('replies with charts made in the real sandbox image', () => {
  let image: string;
  let charts: Buffer[];

  beforeAll(async () => {
    image = await sandboxImage();
    charts = await generateSandboxCharts({ docker, image, count: 7, name: containerName() });
  }, 180_000);

  afterAll(async () => {
    for (const name of names)
      await docker
        .getContainer(name)
        .remove({ force: true })
        .catch(() => undefined);
  });

  it('leaves no container behind', async () => {
    const left = await docker.listContainers({ all: true, filters: { name: names } });
    expect(left).toEqual([]);
  });

  it('golden: matplotlib PNGs decode to their figure sizes and shrink without visible loss', async () => {
    expect(charts).toHaveLength(7);
    let before = 0;
    let after = 0;
    for (const [i, png] of charts.entries()) {
      const meta = await sharp(png).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', ...EXPECTED_SIZES[i]!]);
      const img = await reencoding.renderImage(
        { name: `chart-${i}.png`, data: png, alt: `Chart ${i}` },
        { maxImageDimensionPx: 2048 },
      );
      const [w, h] = EXPECTED_SIZES[i]!;
      const scale = Math.min(1, 2048 / Math.max(w!, h!));
      expect([img.width, img.height]).toEqual([Math.round(w! * scale), Math.round(h! * scale)]);
      expect(img.mime).toBe('image/png');
      expect(img.data.length).toBeLessThan(png.length);
      const original = await sharp(png)
        .resize(img.width, img.height)
        .flatten({ background: '#fff' })
        .removeAlpha()
        .raw()
        .toBuffer();
      const rendered = await sharp(img.data).flatten({ background: '#fff' }).removeAlpha().raw().toBuffer();
      if (scale === 1) expect(psnrDb(original, rendered)).toBeGreaterThanOrEqual(45);
      before += png.length;
      after += img.data.length;
    }
    expect(after / before).toBeLessThan(0.5);
  });

  it('posts charts up to 64 KiB as the sandbox made them and re-encodes the larger ones', async () => {
    let kept = 0;
    for (const [i, png] of charts.entries()) {
      const img = await renderer.renderImage({ name: `chart-${i}.png`, data: png }, { maxImageDimensionPx: 2048 });
      const [w, h] = EXPECTED_SIZES[i]!;
      const within = Math.max(w!, h!) <= 2048;
      if (png.length <= 64 * 1024 && within) {
        expect(img.data.equals(png), `chart ${i}`).toBe(true);
        kept += 1;
      } else expect(img.data.length, `chart ${i}`).toBeLessThan(png.length * 0.6);
    }
    // Matplotlib's default-sized charts are the kept ones; the 200 dpi ones and the big figure are not.
    expect(kept).toBeGreaterThanOrEqual(3);
    expect(kept).toBeLessThan(charts.length);
  });

  it('golden: a matplotlib SVG is rasterised at twice its size', async () => {
    const [svg] = await generateSandboxCharts({ docker, image, count: 1, format: 'svg', name: containerName() });
    expect(svg!.toString('utf8', 0, 200)).toMatch(/<svg/);
    const img = await renderer.renderImage(
      { name: 'line.svg', data: svg!, mime: 'image/svg+xml', alt: 'Damped waves' },
      { maxImageDimensionPx: 2048 },
    );
    // 6.4×4.8 in at 72 pt/in is 460.8×345.6 pt; twice that is 922×691 px.
    expect([img.width, img.height, img.mime, img.name]).toEqual([922, 691, 'image/png', 'line.png']);
    const stats = await sharp(img.data).flatten({ background: '#fff' }).stats();
    expect(stats.channels[0]!.mean).toBeGreaterThan(200); // a white figure…
    expect(stats.channels[0]!.min).toBeLessThan(50); // …with lines and text drawn on it
  });

  it('fits 25 sandbox charts into 9 images and one contact sheet', async () => {
    const rendered = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        renderer.renderImage(
          { name: `figure-${i + 1}.png`, data: charts[i % 6]!, alt: `Figure ${i + 1}` },
          { maxImageDimensionPx: 2048 },
        ),
      ),
    );
    const fitted = await fitImages(rendered, { maxPerMessage: 10, renderer, maxImageDimensionPx: 2048 });
    expect(fitted.individual).toHaveLength(9);
    const meta = await sharp(fitted.contactSheet!.data).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(2048);
    expect(fitted.contactSheet!.alt).toMatch(/^Figures 10–25 of 25: 10\. Figure 10;/);
  });

  it('benchRender prints bytes before and after, bytes saved and ms per image', async () => {
    const lines: string[] = [];
    const result = await benchRender({
      images: charts,
      renderer: reencoding,
      maxImageDimensionPx: 2048,
      out: (l) => lines.push(l),
    });
    expect(result.count).toBe(7);
    expect(result.bytesAfter).toBeLessThan(result.bytesBefore);
    expect(result.savedPercent).toBeGreaterThan(50);
    expect(result.msPerImage).toBeGreaterThan(0);
    expect(lines).toHaveLength(2 + 7 + 1);
    expect(lines.at(-1)).toMatch(
      /^Total: [\d,]+ B → [\d,]+ B, saved \d+\.\d%; \d+\.\d ms per image \(median \d+\.\d ms\)$/,
    );
    process.stderr.write(`${lines.join('\n')}\n`);
  });
});
