import type { OmittedFile, ReplyFile } from '../domain/reply.js';
import { formatBytes } from '../domain/text/format.js';
import { writeZip } from './zip.js';

export interface FitFilesOptions {
  /** The platform's upload limit per file, in bytes. */
  maxBytes: number;
}

export interface FittedFiles {
  /** Files to attach: the originals that fit, and zipped copies of those that fit only compressed. */
  files: ReplyFile[];
  /** Files too large even zipped, each with its size and how to get it. */
  omitted: OmittedFile[];
}

/**
 * Makes files fit a platform's upload limit. A file over `maxBytes` is zipped (`name.zip`, deflate) — zip
 * rather than gzip because every desktop opens it without extra tools; if the archive is still too large
 * the file is listed in `omitted` with its size and where to get it. Nothing is dropped silently.
 */
export async function fitFiles(files: ReplyFile[], options: FitFilesOptions): Promise<FittedFiles> {
  const out: FittedFiles = { files: [], omitted: [] };
  for (const file of files) {
    if (file.data.length <= options.maxBytes) {
      out.files.push(file);
      continue;
    }
    const zipped = await zipFile(file);
    if (zipped && zipped.length <= options.maxBytes) {
      const note = `zipped from ${formatBytes(file.data.length)} to fit the upload limit`;
      out.files.push({
        name: `${file.name}.zip`,
        mime: 'application/zip',
        data: zipped,
        description: file.description ? `${file.description} (${note})` : note,
      });
      continue;
    }
    out.omitted.push(omission(file, { zippedBytes: zipped?.length, ...options }));
  }
  return out;
}

async function zipFile(file: ReplyFile): Promise<Buffer | undefined> {
  try {
    return await writeZip([{ name: file.name, data: file.data }]);
  } catch {
    return undefined; // over 4 GiB: no ZIP64 here, and no platform takes such a file anyway
  }
}

function omission(file: ReplyFile, o: FitFilesOptions & { zippedBytes?: number }): OmittedFile {
  const size = formatBytes(file.data.length);
  const zipped = o.zippedBytes === undefined ? '' : `, ${formatBytes(o.zippedBytes)} zipped`;
  const how = 'ask me to split it or save a smaller version (fewer rows, or a compressed format such as parquet)';
  return {
    name: file.name,
    bytes: file.data.length,
    reason: `${size}${zipped} is over this platform's ${formatBytes(o.maxBytes)} upload limit; ${how}`,
  };
}
