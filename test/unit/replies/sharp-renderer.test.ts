import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { psnrDb } from '../../../adapters/render/encode.js';
import { SharpArtifactRenderer, withExtension } from '../../../adapters/render/sharp-renderer.js';
import { sniffImageFormat } from '../../../adapters/render/sniff.js';
import { isThreadlabError } from '../../../src/domain/errors.js';
import { chartPng, chartSvg, photoJpeg } from './helpers.js';

const renderer = new SharpArtifactRenderer();
/** Re-encodes every image, however small (THREADLAB_REPLY_KEEP_PNG_KB=0). */
const reencoding = new SharpArtifactRenderer({ keepPngBytes: 0 });

/** Decodes both images to RGB at the output's size and compares them. */
async function fidelityDb(original: Buffer, rendered: Buffer, width: number, height: number): Promise<number> {
  const a = await sharp(original)
    .flatten({ background: '#ffffff' })
    .resize(width, height)
    .removeAlpha()
    .raw()
    .toBuffer();
  const b = await sharp(rendered).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer();
  return psnrDb(a, b);
}

describe('sniffImageFormat', () => {
  it('reads the format from the bytes', async () => {
    const px = sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } });
    expect(sniffImageFormat(await px.clone().png().toBuffer())).toBe('png');
    expect(sniffImageFormat(await px.clone().jpeg().toBuffer())).toBe('jpeg');
    expect(sniffImageFormat(await px.clone().gif().toBuffer())).toBe('gif');
    expect(sniffImageFormat(await px.clone().webp().toBuffer())).toBe('webp');
    expect(
      sniffImageFormat(
        Buffer.from('\uFEFF<?xml version="1.0"?>\n<!-- by hand -->\n<svg xmlns="http://www.w3.org/2000/svg"/>'),
      ),
    ).toBe('svg');
    expect(sniffImageFormat(Buffer.from('a,b\n1,2\n'))).toBeUndefined();
  });
});

describe('SharpArtifactRenderer.renderImage', () => {
  it('golden: a 640×480 chart PNG keeps its size, loses over half its bytes, and stays visually identical', async () => {
    const png = await chartPng();
    const img = await reencoding.renderImage(
      { name: 'chart.png', data: png, alt: 'Revenue by quarter' },
      { maxImageDimensionPx: 2048 },
    );
    const meta = await sharp(img.data).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: 'png',
      width: 640,
      height: 480,
    });
    expect({ name: img.name, mime: img.mime, width: img.width, height: img.height, alt: img.alt }).toEqual({
      name: 'chart.png',
      mime: 'image/png',
      width: 640,
      height: 480,
      alt: 'Revenue by quarter',
    });
    expect(png.length).toBeGreaterThan(10_000);
    expect(img.data.length).toBeLessThan(png.length * 0.5);
    expect(meta.isPalette).toBe(true);
    expect(await fidelityDb(png, img.data, 640, 480)).toBeGreaterThanOrEqual(45);
  });

  it('posts a PNG within keepPngBytes byte for byte, and re-encodes one over it', async () => {
    const png = await chartPng();
    expect(png.length).toBeLessThan(64 * 1024);
    const kept = await renderer.renderImage(
      { name: 'chart.png', data: png, alt: 'Chart' },
      { maxImageDimensionPx: 2048 },
    );
    expect(kept.data.equals(png)).toBe(true);
    expect([kept.name, kept.mime, kept.width, kept.height, kept.alt]).toEqual([
      'chart.png',
      'image/png',
      640,
      480,
      'Chart',
    ]);
    const tight = new SharpArtifactRenderer({ keepPngBytes: png.length - 1 });
    const reencoded = await tight.renderImage({ name: 'chart.png', data: png }, { maxImageDimensionPx: 2048 });
    expect(reencoded.data.length).toBeLessThan(png.length * 0.5);
    expect((await sharp(reencoded.data).metadata()).isPalette).toBe(true);
  });

  it('still decodes a small PNG whole: one whose pixel data is broken is refused, not posted', async () => {
    const png = await chartPng();
    const broken = Buffer.from(png);
    const idat = broken.indexOf('IDAT');
    // Keep the signature, IHDR and the IDAT chunk header; scramble the compressed pixels.
    for (let i = idat + 40; i < broken.length - 200; i += 7) broken[i] = broken[i]! ^ 0x5a;
    const err = await renderer.renderImage({ name: 'chart.png', data: broken }, { maxImageDimensionPx: 2048 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isThreadlabError(err, 'attachment_rejected')).toBe(true);
  });

  it('scales a small PNG over the maximum side instead of keeping it', async () => {
    const png = await chartPng();
    const img = await renderer.renderImage({ name: 'chart.png', data: png }, { maxImageDimensionPx: 320 });
    expect([img.width, img.height]).toEqual([320, 240]);
    expect(img.data.equals(png)).toBe(false);
    const meta = await sharp(img.data).metadata();
    expect([meta.width, meta.height]).toEqual([320, 240]);
  });

  it('golden: scales a 4000×3000 chart down to the maximum side, keeping the aspect ratio', async () => {
    const png = await chartPng({ widthPx: 4000, heightPx: 3000 });
    const img = await renderer.renderImage({ name: 'big.png', data: png }, { maxImageDimensionPx: 1024 });
    const meta = await sharp(img.data).metadata();
    expect([meta.width, meta.height, img.width, img.height]).toEqual([1024, 768, 1024, 768]);
    expect(img.data.length).toBeLessThan(png.length / 5);
    expect(img.alt).toBe('Image big.png');
  });

  it('golden: rasterises an SVG at twice its size, within the maximum, with its pixels where drawn', async () => {
    const svg = Buffer.from(
      chartSvg({ widthPx: 400, heightPx: 300 }).replace(
        '</svg>',
        '<rect x="0" y="0" width="20" height="20" fill="#ff0000"/></svg>',
      ),
    );
    const img = await renderer.renderImage(
      { name: 'plot.svg', data: svg, mime: 'image/svg+xml', alt: 'Plot' },
      { maxImageDimensionPx: 2048 },
    );
    expect({ name: img.name, mime: img.mime, width: img.width, height: img.height }).toEqual({
      name: 'plot.png',
      mime: 'image/png',
      width: 800,
      height: 600,
    });
    const { data, info } = await sharp(img.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    expect(at(10, 10)).toEqual([255, 0, 0]); // the red square, 2× scaled to 40 px
    expect(at(60, 60)).toEqual([255, 255, 255]);
    const small = await renderer.renderImage({ name: 'plot.svg', data: svg }, { maxImageDimensionPx: 500 });
    expect([small.width, small.height]).toEqual([500, 375]);
    // Sized in points, as matplotlib writes SVG: still twice the natural size (libvips scales pt differently).
    const pt = Buffer.from(
      chartSvg({ widthPx: 400, heightPx: 300 }).replace('width="400" height="300"', 'width="400pt" height="300pt"'),
    );
    const fromPt = await renderer.renderImage({ name: 'pt.svg', data: pt }, { maxImageDimensionPx: 2048 });
    expect([fromPt.width, fromPt.height]).toEqual([800, 600]);
  });

  it('trusts bytes over the declared type and name', async () => {
    const png = await chartPng({ widthPx: 200, heightPx: 150 });
    const img = await renderer.renderImage(
      { name: 'photo.jpg', data: png, mime: 'image/jpeg' },
      { maxImageDimensionPx: 2048 },
    );
    expect(img.mime).toBe('image/png');
    expect(img.name).toBe('photo.png');
  });

  it('keeps photos as JPEG when that is much smaller, and follows EXIF orientation', async () => {
    const jpeg = await photoJpeg(800, 600);
    const img = await renderer.renderImage({ name: 'photo.jpeg', data: jpeg }, { maxImageDimensionPx: 2048 });
    expect(img.mime).toBe('image/jpeg');
    expect(img.name).toBe('photo.jpg');
    expect(img.data.length).toBeLessThanOrEqual(jpeg.length);
    // A photo saved as PNG: the palette is not faithful enough, and JPEG is far smaller than lossless PNG.
    const photoPng = await sharp(jpeg).png().toBuffer();
    const fromPng = await renderer.renderImage({ name: 'photo.png', data: photoPng }, { maxImageDimensionPx: 2048 });
    expect({ mime: fromPng.mime, name: fromPng.name }).toEqual({ mime: 'image/jpeg', name: 'photo.jpg' });
    expect(fromPng.data.length).toBeLessThan(photoPng.length / 4);
    expect(await fidelityDb(photoPng, fromPng.data, 800, 600)).toBeGreaterThan(30);
    const rotated = await sharp(jpeg).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const upright = await renderer.renderImage({ name: 'r.jpg', data: rotated }, { maxImageDimensionPx: 2048 });
    expect([upright.width, upright.height]).toEqual([600, 800]);
    expect((await sharp(upright.data).metadata()).orientation ?? 1).toBe(1);
  });

  it('keeps transparency, reads WebP, and takes the first frame of an animated GIF', async () => {
    const transparent = await sharp({
      create: { width: 120, height: 80, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0.4 } },
    })
      .png()
      .toBuffer();
    const t = await renderer.renderImage({ name: 't.png', data: transparent }, { maxImageDimensionPx: 2048 });
    expect((await sharp(t.data).metadata()).hasAlpha).toBe(true);

    const webp = await sharp(await chartPng({ widthPx: 300, heightPx: 200 }))
      .webp({ lossless: true })
      .toBuffer();
    const w = await renderer.renderImage({ name: 'chart.webp', data: webp }, { maxImageDimensionPx: 2048 });
    expect({ mime: w.mime, name: w.name, width: w.width, height: w.height }).toEqual({
      mime: 'image/png',
      name: 'chart.png',
      width: 300,
      height: 200,
    });

    const frame = (colour: string) =>
      sharp({ create: { width: 40, height: 30, channels: 3, background: colour } })
        .png()
        .toBuffer();
    const gif = await sharp([await frame('#ff0000'), await frame('#0000ff')], { join: { animated: true } })
      .gif()
      .toBuffer();
    const g = await renderer.renderImage(
      { name: 'anim.gif', data: gif, alt: 'Spinner' },
      { maxImageDimensionPx: 2048 },
    );
    expect({ mime: g.mime, width: g.width, height: g.height, alt: g.alt }).toEqual({
      mime: 'image/png',
      width: 40,
      height: 30,
      alt: 'Spinner (first frame of 2)',
    });
    const { data } = await sharp(g.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([255, 0, 0]);
  });

  it('refuses bytes that are not an image with a typed error', async () => {
    const err = await renderer
      .renderImage({ name: 'data.png', data: Buffer.from('not an image') }, { maxImageDimensionPx: 2048 })
      .catch((e: unknown) => e);
    expect(isThreadlabError(err, 'attachment_rejected')).toBe(true);
    expect((err as Error).message).toMatch(
      /data\.png cannot be shown as an image: it is not a PNG, JPEG, WebP, GIF or SVG/,
    );
    const broken = Buffer.concat([(await chartPng()).subarray(0, 200)]);
    const err2 = await renderer
      .renderImage({ name: 'cut.png', data: broken }, { maxImageDimensionPx: 2048 })
      .catch((e: unknown) => e);
    expect(isThreadlabError(err2, 'attachment_rejected')).toBe(true);
  });

  it('does not blame the file for our own mistakes: a bad option propagates as it is', async () => {
    const photo = await photoJpeg(64, 48);
    const bad = new SharpArtifactRenderer({ encode: { jpegQuality: 500 } });
    const err = await bad
      .renderImage({ name: 'photo.jpg', data: photo }, { maxImageDimensionPx: 2048 })
      .catch((e) => e);
    expect(isThreadlabError(err)).toBe(false);
    expect((err as Error).message).toMatch(/^Expected integer between 1 and 100 for quality/);
    const err2 = await renderer
      .renderImage({ name: 'chart.png', data: await chartPng() }, { maxImageDimensionPx: 0 })
      .catch((e: unknown) => e);
    expect(isThreadlabError(err2)).toBe(false);
    expect((err2 as Error).message).not.toMatch(/could not be decoded/);
  });

  it('says "could not be decoded" for an image whose bytes libvips refuses', async () => {
    const png = await chartPng();
    const corrupt = Buffer.concat([png.subarray(0, 33), Buffer.alloc(png.length - 33, 0x5a)]);
    const err = await renderer
      .renderImage({ name: 'chart.png', data: corrupt }, { maxImageDimensionPx: 2048 })
      .catch((e: unknown) => e);
    expect(isThreadlabError(err, 'attachment_rejected')).toBe(true);
    expect((err as Error).message).toMatch(/^chart\.png cannot be shown as an image: it could not be decoded \(/);
    expect((err as { details: { why: string } }).details.why).toMatch(/^it could not be decoded/);
  });

  it('never reads host files an SVG points to (images, external entities)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'threadlab-svg-'));
    try {
      const secret = join(dir, 'secret.png');
      writeFileSync(
        secret,
        await sharp({ create: { width: 50, height: 50, channels: 3, background: '#ff0000' } })
          .png()
          .toBuffer(),
      );
      for (const href of [`file://${secret}`, secret, 'secret.png']) {
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100"><rect width="100" height="100" fill="white"/><image width="100" height="100" href="${href}" xlink:href="${href}"/></svg>`;
        const img = await renderer.renderImage({ name: 'x.svg', data: Buffer.from(svg) }, { maxImageDimensionPx: 256 });
        const stats = await sharp(img.data).flatten({ background: '#fff' }).stats();
        expect(stats.channels.map((c) => c.min)).toEqual([255, 255, 255]);
      }
      const xxe = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file://${secret}">]><svg xmlns="http://www.w3.org/2000/svg" width="200" height="50"><text y="30">&x;</text></svg>`;
      const err = await renderer
        .renderImage({ name: 'xxe.svg', data: Buffer.from(xxe) }, { maxImageDimensionPx: 256 })
        .catch((e: unknown) => e);
      expect(isThreadlabError(err, 'attachment_rejected')).toBe(true);
      expect((err as Error).message).toMatch(/could not be decoded/); // recognised as SVG, refused by the parser
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names outputs by their format', () => {
    expect(withExtension('a.b.svg', 'png')).toBe('a.b.png');
    expect(withExtension('figure', 'png')).toBe('figure.png');
  });
});
