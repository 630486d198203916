import sharp from 'sharp';
import { ThreadlabError } from '../../../src/domain/errors.js';
import type { ExecutionResult } from '../../../src/domain/execution.js';
import type { ReplyImage } from '../../../src/domain/reply.js';
import type { TurnResult, TurnRun } from '../../../src/interpreter/turn.js';
import type { ArtifactRenderer, ImageInput, RenderOptions } from '../../../src/ports/artifact-renderer.js';

/** A bar chart as SVG, drawn like matplotlib draws one: white figure, axes, bars, title, labels. */
export function chartSvg(o: { widthPx?: number; heightPx?: number; title?: string; seed?: number } = {}): string {
  const w = o.widthPx ?? 640;
  const h = o.heightPx ?? 480;
  let s = o.seed ?? 1;
  const rand = () => (s = (s * 16807) % 2147483647) / 2147483647;
  const bars = Array.from({ length: 8 }, (_, i) => {
    const bh = Math.round((0.2 + 0.7 * rand()) * (h - 120));
    const x = 80 + i * ((w - 120) / 8);
    return (
      `<rect x="${x}" y="${h - 60 - bh}" width="${(w - 120) / 8 - 10}" height="${bh}" fill="#1f77b4"/>` +
      `<text x="${x + 10}" y="${h - 40}" font-size="12" font-family="DejaVu Sans">Q${i + 1}</text>`
    );
  }).join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<rect width="${w}" height="${h}" fill="white"/>` +
    `<line x1="70" y1="${h - 60}" x2="${w - 30}" y2="${h - 60}" stroke="black"/><line x1="70" y1="40" x2="70" y2="${h - 60}" stroke="black"/>` +
    `<text x="${w / 2}" y="28" font-size="16" text-anchor="middle" font-family="DejaVu Sans">${o.title ?? 'Revenue by quarter'}</text>${bars}</svg>`
  );
}

/** The chart rasterised to a PNG the way plotting libraries write them (truecolour with alpha, zlib level 6). */
export async function chartPng(o: Parameters<typeof chartSvg>[0] = {}): Promise<Buffer> {
  return sharp(Buffer.from(chartSvg(o)))
    .ensureAlpha()
    .png({ compressionLevel: 6, palette: false })
    .toBuffer();
}

/** A photo-like image: smooth gradients plus noise, thousands of colours, opaque. */
export async function photoJpeg(widthPx = 800, heightPx = 600): Promise<Buffer> {
  const raw = Buffer.alloc(widthPx * heightPx * 3);
  let s = 7;
  for (let y = 0; y < heightPx; y++) {
    for (let x = 0; x < widthPx; x++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const noise = (s >> 16) % 40;
      const i = (y * widthPx + x) * 3;
      raw[i] = ((x * 255) / widthPx) * 0.8 + noise;
      raw[i + 1] = ((y * 255) / heightPx) * 0.8 + noise;
      raw[i + 2] = 128 + Math.sin(x / 17) * 60 + noise / 2;
    }
  }
  return sharp(raw, { raw: { width: widthPx, height: heightPx, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** A renderer that records its calls and returns the input unchanged (for logic tests that need no pixels). */
export class RecordingRenderer implements ArtifactRenderer {
  readonly rendered: ImageInput[] = [];
  readonly sheets: { images: ReplyImage[]; options: Record<string, unknown> }[] = [];
  /** Images refused as undecodable, the way SharpArtifactRenderer refuses them. */
  failNames = new Set<string>();
  /** Images whose rendering fails with a plain error, like a bug of ours would. */
  brokenNames = new Set<string>();

  async renderImage(input: ImageInput, _options: RenderOptions): Promise<ReplyImage> {
    this.rendered.push(input);
    if (this.failNames.has(input.name))
      throw new ThreadlabError('attachment_rejected', `${input.name} cannot be shown as an image: it is broken.`, {
        isPolicy: true,
        details: { image: input.name, why: 'it is broken' },
      });
    if (this.brokenNames.has(input.name)) throw new TypeError('Cannot read properties of undefined (reading "width")');
    return { name: input.name, mime: input.mime ?? 'image/png', data: input.data, alt: input.alt ?? input.name };
  }

  async contactSheet(images: ReplyImage[], options: RenderOptions & { title?: string }): Promise<ReplyImage> {
    this.sheets.push({ images, options: { ...options } });
    return { name: 'sheet.png', mime: 'image/png', data: Buffer.from('sheet'), alt: options.title ?? 'sheet' };
  }
}

/** A sandbox that serves files from a map and records reads. */
export class MapSandbox {
  readonly reads: string[] = [];
  constructor(readonly files: Map<string, Buffer> = new Map()) {}

  async readFile(_key: string, path: string): Promise<Buffer> {
    this.reads.push(path);
    const data = this.files.get(path);
    if (!data) throw new Error(`no such file: ${path}`);
    return data;
  }
}

export function result(partial: Partial<ExecutionResult> = {}): ExecutionResult {
  return {
    status: 'ok',
    stdout: '',
    stderr: '',
    displays: [],
    artifacts: [],
    durationMs: 120,
    executionCount: 1,
    ...partial,
  };
}

export function run(partial: Partial<ExecutionResult> = {}, code = 'print(1)'): TurnRun {
  return { language: 'python', code, result: result(partial) };
}

export function turn(partial: Partial<TurnResult> = {}): TurnResult {
  return {
    outcome: 'answer',
    text: '',
    runs: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    durationMs: 1500,
    direct: false,
    ...partial,
  };
}
