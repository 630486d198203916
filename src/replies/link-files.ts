import type { OmittedFile, ReplyFile, ReplyFileLink, ReplyImage } from '../domain/reply.js';
import type { SandboxFile } from '../domain/execution.js';
import { isInternalFile } from '../domain/file-names.js';
import type { ImageInput } from '../ports/artifact-renderer.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { Logger } from '../logger.js';
import { applyEdits, fileLinkWords, type EditedText } from './file-link-text.js';
import { MAX_FILE_LINKS, type FileLinkMatch } from './file-links.js';
import { basename, formatBytes } from '../domain/text/format.js';
import type { CollectedFiles, FileNames } from './reply-media.js';

const IMAGE_FILE_RE = /\.(png|jpe?g|gif|webp|svg)$/i;

export interface LinkedFilesDeps {
  /** `listFiles` tells a file of an earlier message from one that does not exist; without it, neither is read. */
  sandbox: Pick<Sandbox, 'readFile'> & Partial<Pick<Sandbox, 'listFiles'>>;
  threadKey: string;
  /** Largest file attached, in bytes (THREADLAB_MAX_FILE_MB). */
  maxFileBytes: number;
  /** Files one reply carries, counting those already attached. */
  maxFiles: number;
  /** Bytes of files one reply carries, counting those already attached. */
  maxFileBytesTotal: number;
  logger?: Logger;
}

/** Files of /mnt/data the answer linked that no run of this turn made, read to be delivered with it. */
export interface LinkedFiles {
  /** Linked as files (or images that cannot be shown as one), to attach. */
  files: ReplyFile[];
  /** Image files linked as images: shown as the reply's images only. */
  images: ImageInput[];
  omitted: OmittedFile[];
  /** The attached name of each path read here. */
  nameByPath: Map<string, string>;
  /** Why each linked path that exists was not attached. */
  notAttached: Map<string, string>;
  /** Paths the sandbox listed (undefined when it could not be asked). */
  listed?: Set<string>;
}

/**
 * Reads the files the answer linked that the runs did not bring back (an earlier message's chart), within what is
 * left of the reply's bounds; what does not fit is omitted with why. The sandbox is listed once, only when a link
 * needs it.
 */
export async function attachLinkedFiles(
  links: FileLinkMatch[],
  collected: CollectedFiles,
  o: { deps: LinkedFilesDeps; names: FileNames },
): Promise<LinkedFiles> {
  const { deps } = o;
  const out: LinkedFiles = { files: [], images: [], omitted: [], nameByPath: new Map(), notAttached: new Map() };
  const wanted = new Map<string, boolean>();
  for (const link of links) {
    if (!link.path || link.beyondLimit || isInternalFile(link.path)) continue;
    if (collected.nameByPath.has(link.path) || collected.notAttached.has(link.path)) continue;
    wanted.set(link.path, (wanted.get(link.path) ?? true) && link.image);
  }
  if (wanted.size === 0 || !deps.sandbox.listFiles) return out;
  let listing: SandboxFile[];
  try {
    listing = await deps.sandbox.listFiles(deps.threadKey);
  } catch (err) {
    deps.logger?.warn({ err }, 'files of the thread could not be listed for the answer’s links');
    return out;
  }
  out.listed = new Set(listing.map((f) => f.path));
  let count = collected.files.length;
  let bytes = collected.files.reduce((n, f) => n + f.data.length, 0);
  for (const file of listing) {
    const asImage = wanted.get(file.path);
    if (asImage === undefined) continue;
    const name = o.names.unique(basename(file.path));
    const omit = (short: string, reason: string): void => {
      out.notAttached.set(file.path, short);
      out.omitted.push({ name, bytes: file.bytes, reason: `${reason}; it stays in /mnt/data/${file.path}` });
    };
    if (file.bytes > deps.maxFileBytes) {
      omit(
        `over the ${formatBytes(deps.maxFileBytes)} attachment limit`,
        `${formatBytes(file.bytes)} is over the ${formatBytes(deps.maxFileBytes)} attachment limit`,
      );
      continue;
    }
    if (count >= deps.maxFiles) {
      omit(`at most ${deps.maxFiles} files per reply`, `the reply already carries ${deps.maxFiles} files`);
      continue;
    }
    if (bytes + file.bytes > deps.maxFileBytesTotal) {
      const total = formatBytes(deps.maxFileBytesTotal);
      omit(`the files of this reply reached ${total}`, `the files of this reply reached ${total}`);
      continue;
    }
    let data: Buffer;
    try {
      data = await deps.sandbox.readFile(deps.threadKey, file.path);
    } catch (err) {
      deps.logger?.warn({ err, path: file.path }, 'linked file could not be read');
      omit(
        'it could not be read from the sandbox',
        `it could not be read from the sandbox (${(err as Error).message})`,
      );
      continue;
    }
    count += 1;
    bytes += data.length;
    out.nameByPath.set(file.path, name);
    if (asImage && (file.mime.startsWith('image/') || IMAGE_FILE_RE.test(file.path)))
      out.images.push({ name, data, mime: file.mime, alt: name });
    else out.files.push({ name, mime: file.mime, data, description: `linked in the answer (/mnt/data/${file.path})` });
  }
  return out;
}

/** What the reply knows of each linked path once its files and images are settled. */
export interface LinkTargets {
  /** Attached file name by sandbox path (the runs' files and linked ones). */
  nameByPath: Map<string, string>;
  /** The image a file is shown as, by its attached name. */
  imageByName: Map<string, ReplyImage>;
  /** Names of `Reply.files`. */
  fileNames: Set<string>;
  /** Why a path that exists was not attached. */
  notAttached: Map<string, string>;
  /** Paths the sandbox listed, when it was asked. */
  listed?: Set<string>;
}

/**
 * Replaces each file link of the answer by platform-neutral words naming the delivered file, or saying plainly why
 * there is none: never a dead link. Returns the text, the links as the reply carries them, and the offset shift
 * (for the figure marks).
 */
export function rewriteFileLinks(
  text: string,
  links: FileLinkMatch[],
  targets: LinkTargets,
): EditedText & { links: ReplyFileLink[] } {
  const resolved = links.map((link) => ({ link, ...resolve(link, targets) }));
  const edited = applyEdits(
    text,
    resolved.map((r) => ({ start: r.link.start, end: r.link.end, replacement: r.words })),
  );
  const out: ReplyFileLink[] = resolved.map(({ link, words, delivered }) => {
    const start = edited.shift(link.start);
    return {
      start,
      end: start + words.length,
      text: words,
      label: link.label,
      path: link.path ?? link.target,
      image: link.image,
      ...(delivered ? { delivered } : {}),
    };
  });
  return { ...edited, links: out };
}

function resolve(link: FileLinkMatch, t: LinkTargets): { words: string; delivered?: ReplyFileLink['delivered'] } {
  const label = link.label;
  if (!link.path)
    return { words: fileLinkWords({ label, name: link.target, status: `not a file of this thread: ${link.refused}` }) };
  const path = link.path;
  if (link.beyondLimit)
    return {
      words: fileLinkWords({
        label,
        name: path,
        status: `not looked up: more than ${MAX_FILE_LINKS} file links in one answer`,
      }),
    };
  if (isInternalFile(path))
    return { words: fileLinkWords({ label, name: path, status: 'not attached: a file of the sandbox’s own' }) };
  const name = t.nameByPath.get(path);
  if (name !== undefined) {
    const image = t.imageByName.get(name);
    if (image && (link.image || !t.fileNames.has(name)))
      return {
        words: fileLinkWords({ label, name: image.name, status: 'attached' }),
        delivered: { kind: 'image', name: image.name },
      };
    if (t.fileNames.has(name))
      return { words: fileLinkWords({ label, name, status: 'attached' }), delivered: { kind: 'file', name } };
  }
  const why = t.notAttached.get(path);
  if (why !== undefined) return { words: fileLinkWords({ label, name: path, status: `not attached: ${why}` }) };
  if (t.listed?.has(path))
    return { words: fileLinkWords({ label, name: path, status: 'not attached: see the notes below' }) };
  // Without a listing of /mnt/data only this answer's own files are known.
  const status = t.listed ? 'not found: no run made this file' : 'not found among the files of this answer';
  return { words: fileLinkWords({ label, name: path, status }) };
}

/**
 * The files of a reply without the copies of images an answer showed as images (`![chart](chart.png)`): a file is
 * dropped only when its image has the same bytes (the renderer kept it as it was) and no link names it as a file.
 */
export function withoutShownCopies(files: ReplyFile[], links: ReplyFileLink[], t: LinkTargets): ReplyFile[] {
  const asFile = new Set(links.flatMap((l) => (l.delivered?.kind === 'file' ? [l.delivered.name] : [])));
  const drop = new Set<string>();
  for (const link of links) {
    if (link.delivered?.kind !== 'image') continue;
    const source = t.nameByPath.get(link.path);
    const image = source === undefined ? undefined : t.imageByName.get(source);
    const file = files.find((f) => f.name === source);
    if (source && image && file && !asFile.has(source) && image.data.equals(file.data)) drop.add(source);
  }
  return drop.size === 0 ? files : files.filter((f) => !drop.has(f.name));
}
