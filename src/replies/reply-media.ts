import { createHash } from 'node:crypto';
import type { Artifact, Display } from '../domain/execution.js';
import type { OmittedFile, ReplyFile, ReplyImage } from '../domain/reply.js';
import type { TurnRun } from '../interpreter/turn.js';
import type { ArtifactRenderer, ImageInput } from '../ports/artifact-renderer.js';
import type { Sandbox } from '../ports/sandbox.js';
import { isThreadlabError, type ThreadlabError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { basename, formatBytes } from '../domain/text/format.js';
import { isInternalFile } from '../domain/file-names.js';

/** Display formats shown as images, best first (a figure often comes as PNG and SVG both). */
const DISPLAY_IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/svg+xml'] as const;
const IMAGE_FILE_RE = /\.(png|jpe?g|gif|webp|svg)$/i;
/** Internal files of the runner (full outputs) are not the user's files. */
/** More images than this are attached as files only; a contact sheet of hundreds would help nobody. */
export const MAX_RENDERED_IMAGES = 60;

export interface MediaDeps {
  sandbox: Pick<Sandbox, 'readFile'>;
  renderer: ArtifactRenderer;
  threadKey: string;
  maxImageDimensionPx: number;
  maxFileBytes: number;
  /** Generated files read back for one reply; the rest are listed in `beyond`. @defaultValue no limit */
  maxFiles?: number;
  /** Bytes of generated files read back for one reply; files past it are omitted. @defaultValue no limit */
  maxFileBytesTotal?: number;
  logger?: Logger;
}

/** Hands out file names unique within one reply: "data.csv", then "data (2).csv". */
export class FileNames {
  private readonly used = new Set<string>();

  unique(name: string): string {
    let candidate = name;
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    for (let n = 2; this.used.has(candidate.toLowerCase()); n++) candidate = `${stem} (${n})${ext}`;
    this.used.add(candidate.toLowerCase());
    return candidate;
  }
}

/** Alt text from what the runner knew of a chart: "Revenue by quarter (x: quarter, y: k$)". */
export function altText(meta: Display['meta'], figureNumber: number): string {
  const title = meta?.title?.trim() || `Figure ${figureNumber}`;
  const axes = [
    meta?.xlabel?.trim() && `x: ${meta.xlabel.trim()}`,
    meta?.ylabel?.trim() && `y: ${meta.ylabel.trim()}`,
  ].filter(Boolean);
  return axes.length > 0 ? `${title} (${axes.join(', ')})` : title;
}

/** The image of a display, decoded from base64 (SVG may come as text), or undefined when it has none. */
export function displayImage(display: Display, figureNumber: number): ImageInput | undefined {
  const mime = DISPLAY_IMAGE_MIMES.find((m) => typeof display.data[m] === 'string');
  if (!mime) return undefined;
  const raw = display.data[mime]!;
  const data =
    mime === 'image/svg+xml' && raw.trimStart().startsWith('<') ? Buffer.from(raw, 'utf8') : Buffer.from(raw, 'base64');
  const ext = mime === 'image/svg+xml' ? 'svg' : mime === 'image/jpeg' ? 'jpg' : 'png';
  return { name: `figure-${figureNumber}.${ext}`, data, mime, alt: altText(display.meta, figureNumber) };
}

/** The newest record of each file the runs created or changed, in first-seen order, without runner internals. */
export function latestArtifacts(runs: TurnRun[]): Artifact[] {
  const byPath = new Map<string, Artifact>();
  for (const run of runs) for (const a of run.result.artifacts) if (!isInternalFile(a.path)) byPath.set(a.path, a);
  return [...byPath.values()];
}

export interface CollectedFiles {
  files: ReplyFile[];
  /** Image files, to be shown as images too. */
  images: ImageInput[];
  omitted: OmittedFile[];
  /** The attached name of each sandbox path that was attached. */
  nameByPath: Map<string, string>;
  /** Paths of files past `maxFiles`: not read, to be named in one line. */
  beyond: string[];
  /** Why each file the runs made was not attached, in a few words ("over the 10 MB attachment limit"). */
  notAttached: Map<string, string>;
}

/**
 * Reads the generated files from the sandbox under their own names, up to `maxFiles` files and
 * `maxFileBytesTotal` bytes; what cannot be read or is too large is omitted with why, and files past the count
 * are returned in `beyond` unread.
 */
export async function collectArtifacts(runs: TurnRun[], deps: MediaDeps, names: FileNames): Promise<CollectedFiles> {
  const out: CollectedFiles = {
    files: [],
    images: [],
    omitted: [],
    nameByPath: new Map(),
    beyond: [],
    notAttached: new Map(),
  };
  const artifacts = latestArtifacts(runs);
  const maxFiles = deps.maxFiles ?? Infinity;
  const maxTotal = deps.maxFileBytesTotal ?? Infinity;
  let readBytes = 0;
  for (const [index, artifact] of artifacts.entries()) {
    if (index >= maxFiles) {
      out.beyond.push(artifact.path);
      out.notAttached.set(artifact.path, `at most ${maxFiles} files per reply`);
      continue;
    }
    const name = names.unique(basename(artifact.path));
    if (artifact.bytes <= deps.maxFileBytes && readBytes + artifact.bytes > maxTotal) {
      out.omitted.push({
        name,
        bytes: artifact.bytes,
        reason: `the files of this reply reached ${formatBytes(maxTotal)}; it stays in /mnt/data/${artifact.path} for your next message`,
      });
      out.notAttached.set(artifact.path, `the files of this reply reached ${formatBytes(maxTotal)}`);
      continue;
    }
    if (artifact.bytes > deps.maxFileBytes) {
      out.omitted.push({
        name,
        bytes: artifact.bytes,
        reason: `${formatBytes(artifact.bytes)} is over the ${formatBytes(deps.maxFileBytes)} attachment limit; it stays in /mnt/data/${artifact.path} for your next message`,
      });
      out.notAttached.set(artifact.path, `over the ${formatBytes(deps.maxFileBytes)} attachment limit`);
      continue;
    }
    let data: Buffer;
    try {
      data = await deps.sandbox.readFile(deps.threadKey, artifact.path);
    } catch (err) {
      deps.logger?.warn({ err, path: artifact.path }, 'artifact could not be read');
      out.omitted.push({
        name,
        bytes: artifact.bytes,
        reason: `it could not be read from the sandbox (${(err as Error).message})`,
      });
      out.notAttached.set(artifact.path, 'it could not be read from the sandbox');
      continue;
    }
    readBytes += data.length;
    const verb = artifact.change === 'created' ? 'created' : 'changed';
    out.nameByPath.set(artifact.path, name);
    out.files.push({
      name,
      mime: artifact.mime,
      data,
      description: `${verb} by your code (/mnt/data/${artifact.path})`,
    });
    if (artifact.mime.startsWith('image/') || IMAGE_FILE_RE.test(artifact.path))
      out.images.push({ name, data, mime: artifact.mime, alt: name });
  }
  for (const run of runs) {
    for (const skipped of run.result.skippedArtifacts ?? []) {
      out.notAttached.set(skipped.path, 'it was not brought back from the sandbox');
      // The sandbox did not say how large it was; 0 means unknown here.
      out.omitted.push({
        name: basename(skipped.path),
        bytes: 0,
        reason: `it was not brought back from the sandbox: ${skipped.reason}`,
      });
    }
  }
  return out;
}

export interface RenderedImages {
  images: ReplyImage[];
  omitted: OmittedFile[];
  /** Originals of displayed figures that could not be rendered, attached instead. */
  files: ReplyFile[];
  /** One line per image that could not be shown, for the reply's text. */
  notes: string[];
  /** The image each input is shown as (an exact duplicate: the earlier one's). */
  shown: Map<ImageInput, ReplyImage>;
}

/**
 * Renders images for chat, skipping exact duplicates (a figure both displayed and saved). An image that cannot
 * be rendered is never dropped silently: the reply says so with the reason, an image file is attached anyway,
 * and a displayed figure is attached as its original file when within the size limit (else omitted with why).
 * A decode failure of the image is the file's problem (logged at debug); anything else is ours (logged as an
 * error with its cause). Beyond {@link MAX_RENDERED_IMAGES}, image files stay files.
 */
export async function renderImages(
  inputs: { input: ImageInput; fromFile: boolean }[],
  deps: MediaDeps,
): Promise<RenderedImages> {
  const out: RenderedImages = { images: [], omitted: [], files: [], notes: [], shown: new Map() };
  const seen = new Map<string, ImageInput>();
  for (const { input, fromFile } of inputs) {
    const hash = createHash('sha256').update(input.data).digest('hex');
    const first = seen.get(hash);
    if (first) {
      const image = out.shown.get(first);
      if (image) out.shown.set(input, image);
      continue;
    }
    seen.set(hash, input);
    if (out.images.length >= MAX_RENDERED_IMAGES) {
      if (!fromFile)
        out.omitted.push({
          name: input.name,
          bytes: input.data.length,
          reason: `more than ${MAX_RENDERED_IMAGES} figures in one answer`,
        });
      continue;
    }
    try {
      const image = await deps.renderer.renderImage(input, { maxImageDimensionPx: deps.maxImageDimensionPx });
      out.images.push(image);
      out.shown.set(input, image);
    } catch (err) {
      unrendered(out, { input, fromFile, err, deps });
    }
  }
  return out;
}

function unrendered(
  out: RenderedImages,
  o: { input: ImageInput; fromFile: boolean; err: unknown; deps: MediaDeps },
): void {
  const { input, deps } = o;
  const decodeFailure = isThreadlabError(o.err, 'attachment_rejected');
  if (decodeFailure) deps.logger?.debug({ err: o.err, image: input.name }, 'image not rendered: not decodable');
  else deps.logger?.error({ err: o.err, image: input.name }, 'image rendering failed');
  const why = decodeFailure
    ? String((o.err as ThreadlabError).details?.why ?? (o.err as Error).message)
    : 'the image renderer failed on our side';
  if (o.fromFile) {
    out.notes.push(`_${input.name} could not be rendered: ${why}; it is attached as a file._`);
    return;
  }
  if (input.data.length > deps.maxFileBytes) {
    out.notes.push(`_${input.name} could not be rendered: ${why}._`);
    out.omitted.push({ name: input.name, bytes: input.data.length, reason: `it could not be rendered: ${why}` });
    return;
  }
  out.notes.push(`_${input.name} could not be rendered: ${why}; the original is attached._`);
  out.files.push({
    name: input.name,
    mime: input.mime ?? 'application/octet-stream',
    data: input.data,
    description: 'a figure that could not be rendered, as the code produced it',
  });
}
