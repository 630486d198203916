import sharp from 'sharp';
import type { ReplyImage } from '../../src/domain/reply.js';
import type { RenderOptions } from '../../src/ports/artifact-renderer.js';
import type { RawImage } from './encode.js';

export interface ContactSheetOptions extends RenderOptions {
  /** A heading above the grid. */
  title?: string;
  /** Number in the first caption, so captions match the figures' numbers in the reply. @defaultValue 1 */
  firstIndex?: number;
}

const GAP_PX = 16;
const MIN_CELL_PX = 32;
const MAX_ALT_CHARS = 1500;
const FONT = "'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, sans-serif";

/**
 * Lays images out as a captioned grid on white, as square as the count allows (25 → 5×5, 16 → 4×4), fitting
 * `maxImageDimensionPx` on both sides. Captions ("12. Revenue by quarter") and the title are SVG text composited by
 * sharp, so they need a system font (DejaVu or Liberation in our images). Returns pixels; the caller encodes.
 */
export async function renderContactSheet(
  images: ReplyImage[],
  options: ContactSheetOptions,
): Promise<{ raw: RawImage; image: Omit<ReplyImage, 'data' | 'mime'> }> {
  if (images.length === 0) throw new RangeError('a contact sheet needs at least one image');
  const first = options.firstIndex ?? 1;
  const sizes = await Promise.all(images.map(imageSize));
  const aspect = median(sizes.map((s) => s.height / s.width));
  const layout = sheetLayout({
    count: images.length,
    aspect,
    maxImageDimensionPx: options.maxImageDimensionPx,
    titled: Boolean(options.title),
  });
  const { cellW, thumbH, fontPx, titleH, width, height } = layout;

  const cells = images.map((img, i) => ({ img, ...layout.cellAt(i), caption: `${first + i}. ${img.alt || img.name}` }));
  const thumbs = await Promise.all(
    cells.map(async ({ img, x, y }) => {
      const { data, info } = await sharp(img.data)
        .resize({ width: cellW, height: thumbH, fit: 'inside', withoutEnlargement: true })
        .png()
        .toBuffer({ resolveWithObject: true });
      return {
        input: data,
        left: x + Math.floor((cellW - info.width) / 2),
        top: y + Math.floor((thumbH - info.height) / 2),
      };
    }),
  );
  const maxCaptionChars = Math.max(4, Math.floor(cellW / (fontPx * 0.6)));
  const texts = cells.map(
    ({ x, y, caption }) =>
      `<rect x="${x - 0.5}" y="${y - 0.5}" width="${cellW + 1}" height="${thumbH + 1}" fill="none" stroke="#d0d0d0"/>` +
      `<text x="${x + cellW / 2}" y="${y + thumbH + Math.round(fontPx * 1.35)}" font-size="${fontPx}" text-anchor="middle">${escapeXml(ellipsis(caption, maxCaptionChars))}</text>`,
  );
  if (options.title) {
    const titlePx = fontPx + 4;
    texts.unshift(
      `<text x="${GAP_PX}" y="${Math.round(titleH * 0.5 + titlePx * 0.6)}" font-size="${titlePx}" font-weight="bold">${escapeXml(options.title)}</text>`,
    );
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="${FONT}" fill="#222">${texts.join('')}</svg>`;
  const { data, info } = await sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
    .composite([...thumbs, { input: Buffer.from(svg), left: 0, top: 0 }])
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });

  const last = first + images.length - 1;
  const alt = ellipsis(`${options.title ?? 'Contact sheet'}: ${cells.map((c) => c.caption).join('; ')}`, MAX_ALT_CHARS);
  return {
    raw: { data, width: info.width, height: info.height, channels: 3 },
    image: { name: `figures-${first}-${last}.png`, alt, width: info.width, height: info.height },
  };
}

export interface SheetLayout {
  cols: number;
  rows: number;
  cellW: number;
  thumbH: number;
  captionH: number;
  titleH: number;
  fontPx: number;
  width: number;
  height: number;
  /** Top-left corner of cell `i`'s thumbnail box; its caption is the `captionH` band below. */
  cellAt(i: number): { x: number; y: number };
}

/**
 * The grid for `count` images of a typical height/width `aspect` (clamped to 0.5–1.25): as square as the count
 * allows, fitted to `maxImageDimensionPx` on both sides, captions sized to the cells (11–20 px).
 */
export function sheetLayout(o: {
  count: number;
  aspect: number;
  maxImageDimensionPx: number;
  titled: boolean;
}): SheetLayout {
  const cols = Math.ceil(Math.sqrt(o.count));
  const rows = Math.ceil(o.count / cols);
  const aspect = clamp(o.aspect, 0.5, 1.25);
  const max = o.maxImageDimensionPx;
  let cellW = Math.floor((max - GAP_PX * (cols + 1)) / cols);
  const fontPx = clamp(Math.round(cellW / 28), 11, 20);
  const captionH = Math.round(fontPx * 1.8);
  const titleH = o.titled ? Math.round(fontPx * 3) : 0;
  const heightFor = (w: number) => titleH + rows * (Math.round(w * aspect) + captionH) + GAP_PX * (rows + 1);
  if (heightFor(cellW) > max)
    cellW = Math.floor((max - titleH - GAP_PX * (rows + 1) - rows * captionH) / (rows * aspect));
  cellW = Math.max(MIN_CELL_PX, cellW);
  const thumbH = Math.round(cellW * aspect);
  return {
    cols,
    rows,
    cellW,
    thumbH,
    captionH,
    titleH,
    fontPx,
    width: cols * cellW + GAP_PX * (cols + 1),
    height: heightFor(cellW),
    cellAt: (i) => ({
      x: GAP_PX + (i % cols) * (cellW + GAP_PX),
      y: titleH + GAP_PX + Math.floor(i / cols) * (thumbH + captionH + GAP_PX),
    }),
  };
}

async function imageSize(img: ReplyImage): Promise<{ width: number; height: number }> {
  if (img.width && img.height) return { width: img.width, height: img.height };
  const meta = await sharp(img.data).metadata();
  return { width: meta.width || 1, height: meta.height || 1 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0.75;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

function ellipsis(s: string, max: number): string {
  // Control characters are not allowed in XML; the caption goes into SVG.
  // eslint-disable-next-line no-control-regex
  const flat = s.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function escapeXml(s: string): string {
  return s.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c,
  );
}
