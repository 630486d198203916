import sharp from 'sharp';

/** Decoded 8-bit pixels, 3 (RGB) or 4 (RGBA) channels. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

export interface EncodeOptions {
  /**
   * A 256-colour palette PNG is used when it is at least this faithful (peak signal-to-noise ratio over all
   * channels). Above ~45 dB differences are invisible; matplotlib charts land at 49–75 dB. @defaultValue 45
   */
  minPalettePsnrDb?: number;
  /** @defaultValue 85 */
  jpegQuality?: number;
  /** An opaque photo-like image becomes JPEG only if that is at most this fraction of the lossless PNG. @defaultValue 0.5 */
  jpegMaxRatio?: number;
}

export interface Encoded {
  data: Buffer;
  format: 'png' | 'jpeg';
  /** How it was encoded, for logs and the benchmark. */
  strategy: 'palette' | 'lossless' | 'jpeg';
}

/**
 * Encodes pixels for chat, smallest without visible loss. Charts and line art have few colours: a palette PNG
 * (libimagequant, no dithering, effort 1 — higher efforts cost 3–4× the time for <1% fewer bytes) keeps them
 * sharp at a third of the size; it is checked against the pixels and kept only if faithful. Photo-like images
 * fail that check and go lossless PNG, or JPEG (mozjpeg) when opaque and much smaller: a JPEG must halve the
 * PNG to be worth its artefacts around text. `fromJpeg` sources stay JPEG.
 */
export async function encodeForChat(
  image: RawImage,
  options: EncodeOptions & { fromJpeg?: boolean } = {},
): Promise<Encoded> {
  const opaque = image.channels === 3 || isOpaque(image.data);
  const pixels = opaque && image.channels === 4 ? dropAlpha(image) : image;
  const input = () =>
    sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: pixels.channels } });
  const jpegOf = () =>
    input()
      .jpeg({ quality: options.jpegQuality ?? 85, mozjpeg: true })
      .toBuffer();
  // A JPEG source is a photo or already carries JPEG artefacts: a palette would band it and a PNG would be
  // larger, and trying both costs ~10× the time of a photo's JPEG encoding.
  if (options.fromJpeg && opaque) return { data: await jpegOf(), format: 'jpeg', strategy: 'jpeg' };

  const palette = await input()
    .png({ palette: true, quality: 100, effort: 1, dither: 0, compressionLevel: 9 })
    .toBuffer();
  const decoded = sharp(palette);
  const back = await (pixels.channels === 4 ? decoded.ensureAlpha() : decoded.removeAlpha()).raw().toBuffer();
  if (psnrDb(pixels.data, back) >= (options.minPalettePsnrDb ?? 45))
    return { data: palette, format: 'png', strategy: 'palette' };

  const lossless = await input().png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer();
  if (!opaque) return { data: lossless, format: 'png', strategy: 'lossless' };
  const jpeg = await jpegOf();
  if (jpeg.length <= lossless.length * (options.jpegMaxRatio ?? 0.5))
    return { data: jpeg, format: 'jpeg', strategy: 'jpeg' };
  return { data: lossless, format: 'png', strategy: 'lossless' };
}

/** Peak signal-to-noise ratio of two equal-length 8-bit buffers, in dB (Infinity when identical). */
export function psnrDb(a: Buffer, b: Buffer): number {
  if (a.length !== b.length) return 0;
  let squared = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    squared += d * d;
  }
  if (squared === 0) return Infinity;
  return 10 * Math.log10((255 * 255 * a.length) / squared);
}

function isOpaque(rgba: Buffer): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

function dropAlpha(image: RawImage): RawImage {
  const px = image.width * image.height;
  const rgb = Buffer.allocUnsafe(px * 3);
  for (let p = 0; p < px; p++) {
    rgb[p * 3] = image.data[p * 4]!;
    rgb[p * 3 + 1] = image.data[p * 4 + 1]!;
    rgb[p * 3 + 2] = image.data[p * 4 + 2]!;
  }
  return { data: rgb, width: image.width, height: image.height, channels: 3 };
}
