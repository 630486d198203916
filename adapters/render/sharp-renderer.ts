import sharp, { type Metadata } from 'sharp';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { ReplyImage } from '../../src/domain/reply.js';
import type { ArtifactRenderer, ImageInput, RenderOptions } from '../../src/ports/artifact-renderer.js';
import type { Logger } from '../../src/logger.js';
import { renderContactSheet, type ContactSheetOptions } from './contact-sheet.js';
import { encodeForChat, type EncodeOptions, type Encoded, type RawImage } from './encode.js';
import { sniffImageFormat, type ImageFormat } from './sniff.js';

export interface SharpArtifactRendererOptions {
  logger?: Logger;
  encode?: EncodeOptions;
  /**
   * SVGs are rasterised at this multiple of their natural size (crisp on high-density screens), capped by
   * `maxImageDimensionPx`. @defaultValue 2
   */
  svgScale?: number;
  /**
   * A PNG at most this many bytes, within the size limit and upright, is posted as the sandbox made it (after
   * decoding it whole, so a broken one is still refused): re-encoding it as a palette PNG costs 10–40 ms on a
   * 2-core machine to save some tens of KB, longer than drawing the chart took to send. 0 re-encodes every image.
   * @defaultValue {@link DEFAULT_KEEP_PNG_BYTES}
   */
  keepPngBytes?: number;
}

/** The bytes posted: re-encoded, or the input's own (`kept`). */
type Chosen = Omit<Encoded, 'strategy'> & { strategy: Encoded['strategy'] | 'kept' };

/** PNGs up to 64 KiB (matplotlib's default 640×480 charts land at 15–60 KB) are posted as they are. */
export const DEFAULT_KEEP_PNG_BYTES = 64 * 1024;

/**
 * The ArtifactRenderer on sharp (libvips). Trusts the bytes, not the declared type: PNG, JPEG, WebP, GIF (first
 * frame) and SVG (rasterised) are decoded, EXIF-rotated, scaled to fit `maxImageDimensionPx`, and re-encoded by
 * {@link encodeForChat}; an untouched PNG or JPEG that is already smaller than the re-encoding is kept as is, and
 * so is an untouched PNG of at most `keepPngBytes`, without trying (it is still decoded whole first).
 */
export class SharpArtifactRenderer implements ArtifactRenderer {
  private readonly logger: Logger | undefined;
  private readonly encode: EncodeOptions;
  private readonly svgScale: number;
  private readonly keepPngBytes: number;

  constructor(options: SharpArtifactRendererOptions = {}) {
    this.logger = options.logger;
    this.encode = options.encode ?? {};
    this.svgScale = options.svgScale ?? 2;
    this.keepPngBytes = options.keepPngBytes ?? DEFAULT_KEEP_PNG_BYTES;
  }

  /**
   * Renders one image. Bytes that are not an image, or that libvips cannot decode, are refused with
   * `attachment_rejected` (a policy error that names the file); any other failure is ours (a bad option, a bug)
   * and propagates as it is, so it is logged as a failure rather than blamed on the user's file.
   */
  async renderImage(input: ImageInput, options: RenderOptions): Promise<ReplyImage> {
    const format = sniffImageFormat(input.data);
    if (!format) throw rejected(input.name, 'it is not a PNG, JPEG, WebP, GIF or SVG image');
    const started = performance.now();
    const { meta, raw } = await this.decodeInput(input, format, options);
    const resized = format === 'svg' || raw.width !== meta.autoOrient.width || raw.height !== meta.autoOrient.height;
    const rotated = (meta.orientation ?? 1) > 1;
    const untouched = !resized && !rotated;
    const small = untouched && format === 'png' && (meta.pages ?? 1) === 1 && input.data.length <= this.keepPngBytes;
    let out: Chosen = small
      ? { data: input.data, format: 'png', strategy: 'kept' }
      : await encodeForChat(raw, { ...this.encode, fromJpeg: format === 'jpeg' });
    const keepable = untouched && (format === 'png' || format === 'jpeg') && format === out.format;
    if (!small && keepable && input.data.length <= out.data.length)
      out = { ...out, data: input.data, strategy: 'kept' };
    const frames = format === 'gif' && (meta.pages ?? 1) > 1 ? ` (first frame of ${meta.pages})` : '';
    this.logger?.debug(
      {
        image: input.name,
        format,
        bytesIn: input.data.length,
        bytesOut: out.data.length,
        strategy: out.strategy,
        ms: Math.round(performance.now() - started),
      },
      'image rendered',
    );
    return {
      name: withExtension(input.name, out.format === 'jpeg' ? 'jpg' : 'png'),
      mime: out.format === 'jpeg' ? 'image/jpeg' : 'image/png',
      data: out.data,
      alt: `${input.alt?.trim() || `Image ${input.name}`}${frames}`,
      width: raw.width,
      height: raw.height,
    };
  }

  /** Reads the input's metadata and pixels; only libvips failing on the input's bytes counts as "could not be decoded". */
  private async decodeInput(
    input: ImageInput,
    format: ImageFormat,
    options: RenderOptions,
  ): Promise<{ meta: Metadata; raw: RawImage }> {
    try {
      const meta = await sharp(input.data, { density: 72 }).metadata();
      const density =
        format === 'svg' ? await this.svgDensity(input.data, meta, options.maxImageDimensionPx) : undefined;
      const raw = await decode(input.data, { format, density, hasAlpha: meta.hasAlpha, ...options });
      return { meta, raw };
    } catch (err) {
      if (!isInputFailure(err)) throw err;
      throw rejected(input.name, `it could not be decoded (${(err as Error).message})`, err);
    }
  }

  async contactSheet(images: ReplyImage[], options: ContactSheetOptions): Promise<ReplyImage> {
    const sheet = await renderContactSheet(images, options);
    const out = await encodeForChat(sheet.raw, this.encode);
    return {
      ...sheet.image,
      data: out.data,
      mime: out.format === 'jpeg' ? 'image/jpeg' : 'image/png',
      name: withExtension(sheet.image.name, out.format === 'jpeg' ? 'jpg' : 'png'),
    };
  }

  /**
   * The density that rasterises an SVG at `svgScale` times its natural size, capped by `maxImageDimensionPx`. libvips
   * scales px-sized SVGs linearly with density but applies it twice to pt/in/mm sizes (matplotlib writes pt), so
   * the response is probed at 144 dpi instead of assumed.
   */
  private async svgDensity(data: Buffer, meta: Metadata, maxImageDimensionPx: number): Promise<number> {
    const longest = Math.max(meta.width ?? 0, meta.height ?? 0);
    if (longest <= 0) return 72;
    const target = Math.min(maxImageDimensionPx, longest * this.svgScale);
    const probe = await sharp(data, { density: 144 }).metadata();
    const exponent = Math.log2(Math.max(probe.width ?? 0, probe.height ?? 0) / longest);
    const density = 72 * (target / longest) ** (1 / (exponent > 0.5 ? exponent : 1));
    return Math.min(Math.max(density, 1), 2400);
  }
}

async function decode(
  data: Buffer,
  o: { format: ImageFormat; density: number | undefined; hasAlpha: boolean | undefined; maxImageDimensionPx: number },
): Promise<RawImage> {
  let pipeline = sharp(data, { density: o.density, pages: 1 })
    .rotate()
    .resize({ width: o.maxImageDimensionPx, height: o.maxImageDimensionPx, fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb');
  pipeline = o.hasAlpha || o.format === 'svg' ? pipeline.ensureAlpha() : pipeline.removeAlpha();
  const { data: pixels, info } = await pipeline.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return { data: pixels, width: info.width, height: info.height, channels: info.channels === 4 ? 4 : 3 };
}

/**
 * Whether an error of sharp is about the input's bytes. sharp validates its arguments synchronously with
 * "Expected …" messages and JavaScript errors (TypeError, RangeError): those are our mistakes, not the file's.
 */
function isInputFailure(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof ThreadlabError) return false;
  if (err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError) return false;
  return !/^Expected /.test(err.message);
}

function rejected(name: string, why: string, cause?: unknown): ThreadlabError {
  return new ThreadlabError('attachment_rejected', `${name} cannot be shown as an image: ${why}.`, {
    cause,
    isPolicy: true,
    details: { image: name, why },
  });
}

/** `chart.svg` → `chart.png`; a name without extension gets one. */
export function withExtension(name: string, ext: string): string {
  const base = name.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  return `${base || 'image'}.${ext}`;
}
