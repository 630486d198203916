import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { sheetLayout } from '../../../adapters/render/contact-sheet.js';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import type { ReplyImage } from '../../../src/domain/reply.js';
import { fitImages } from '../../../src/replies/fit-images.js';
import { chartPng, RecordingRenderer } from './helpers.js';

function fakeImages(n: number): ReplyImage[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `figure-${i + 1}.png`,
    mime: 'image/png',
    data: Buffer.from(`img${i}`),
    alt: `Figure ${i + 1}`,
  }));
}

describe('fitImages (rule)', () => {
  it('sends everything individually when it fits', async () => {
    const renderer = new RecordingRenderer();
    const images = fakeImages(10);
    expect(await fitImages(images, { maxPerMessage: 10, renderer, maxImageDimensionPx: 2048 })).toEqual({
      individual: images,
    });
    expect(renderer.sheets).toEqual([]);
  });

  it('25 figures with a limit of 10: 9 individually, 16 in one sheet numbered from 10', async () => {
    const renderer = new RecordingRenderer();
    const images = fakeImages(25);
    const fitted = await fitImages(images, { maxPerMessage: 10, renderer, maxImageDimensionPx: 2048 });
    expect(fitted.individual).toEqual(images.slice(0, 9));
    expect(fitted.contactSheet).toBeDefined();
    expect(renderer.sheets).toHaveLength(1);
    expect(renderer.sheets[0]!.images).toEqual(images.slice(9));
    expect(renderer.sheets[0]!.options).toEqual({
      maxImageDimensionPx: 2048,
      title: 'Figures 10–25 of 25',
      firstIndex: 10,
    });
    expect(fitted.individual.length + renderer.sheets[0]!.images.length).toBe(25);
  });

  it('with room for one image, puts them all in the sheet', async () => {
    const renderer = new RecordingRenderer();
    const fitted = await fitImages(fakeImages(3), { maxPerMessage: 1, renderer, maxImageDimensionPx: 1000 });
    expect(fitted.individual).toEqual([]);
    expect(renderer.sheets[0]!.images).toHaveLength(3);
  });
});

describe('fitImages with sharp (golden)', () => {
  const renderer = new SharpArtifactRenderer();
  let figures: ReplyImage[];

  beforeAll(async () => {
    figures = [];
    for (let i = 0; i < 25; i++) {
      const png = await chartPng({ seed: i + 1, title: `Chart ${i + 1}` });
      figures.push(
        await renderer.renderImage(
          { name: `figure-${i + 1}.png`, data: png, alt: `Chart ${i + 1}` },
          { maxImageDimensionPx: 2048 },
        ),
      );
    }
  }, 60_000);

  it('25 figures → 9 images and a 4×4 captioned contact sheet within 2048 px', async () => {
    const fitted = await fitImages(figures, { maxPerMessage: 10, renderer, maxImageDimensionPx: 2048 });
    expect(fitted.individual.map((f) => f.name)).toEqual(figures.slice(0, 9).map((f) => f.name));
    const sheet = fitted.contactSheet!;
    expect(sheet.name).toBe('figures-10-25.png');
    expect(sheet.alt).toMatch(/^Figures 10–25 of 25: 10\. Chart 10; 11\. Chart 11;.*25\. Chart 25$/);
    const meta = await sharp(sheet.data).metadata();
    expect(meta.format).toBe('png');
    expect([meta.width, meta.height]).toEqual([sheet.width, sheet.height]);
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(2048);
    expect(meta.width).toBeGreaterThan(1900);
    expect(sheet.data.length).toBeLessThan(figures.slice(9).reduce((n, f) => n + f.data.length, 0) * 1.5);

    // Each of the 4×4 cells holds a chart (blue bars), and the band under each holds its caption (dark text).
    const layout = sheetLayout({ count: 16, aspect: 0.75, maxImageDimensionPx: 2048, titled: true });
    expect([layout.cols, layout.rows, layout.width, layout.height]).toEqual([4, 4, sheet.width, sheet.height]);
    const { data, info } = await sharp(sheet.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const count = (
      box: { x: number; y: number; w: number; h: number },
      test: (r: number, g: number, b: number) => boolean,
    ) => {
      let n = 0;
      for (let y = box.y; y < box.y + box.h; y++) {
        for (let x = box.x; x < box.x + box.w; x++) {
          const i = (y * info.width + x) * 3;
          if (test(data[i]!, data[i + 1]!, data[i + 2]!)) n++;
        }
      }
      return n;
    };
    const grid = { charts: 0, captions: 0, blankGaps: 0 };
    for (let i = 0; i < 16; i++) {
      const { x, y } = layout.cellAt(i);
      if (count({ x, y, w: layout.cellW, h: layout.thumbH }, (r, _g, b) => b > 150 && r < 80) > 1000) grid.charts++;
      if (
        count({ x, y: y + layout.thumbH + 2, w: layout.cellW, h: layout.captionH - 2 }, (r, g, b) => r + g + b < 200) >
        50
      )
        grid.captions++;
      if (count({ x: x - 12, y, w: 8, h: layout.thumbH }, (r, g, b) => r + g + b < 700) === 0) grid.blankGaps++;
    }
    expect(grid).toEqual({ charts: 16, captions: 16, blankGaps: 16 });
  });
});
