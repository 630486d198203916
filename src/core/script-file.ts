import type { CodeCell } from '../domain/code-cells.js';
import { scriptKindOf, SCRIPT_EXTENSIONS } from '../domain/code-cells.js';
import { limitBytes } from '../domain/byte-limit.js';
import { ThreadlabError, toThreadlabError } from '../domain/errors.js';
import type { InboundAttachment } from '../domain/messages.js';
import { notebookCells } from '../domain/notebook-cells.js';
import type { PlatformAdapter } from '../ports/platform-adapter.js';
import { formatBytes } from '../domain/text/format.js';

/** Limits of code run from a message or a script. */
export interface ScriptLimits {
  /** Largest script read, in bytes (THREADLAB_SCRIPT_MAX_KB). */
  maxBytes: number;
  /** Most cells (fenced blocks, notebook code cells) run from one message (THREADLAB_RUN_MAX_CELLS). */
  maxCells: number;
  /**
   * What the adapter's download may bring (THREADLAB_MAX_FILE_MB): the script limit is counted here, so a script
   * over it gets the script limit's own answer rather than the platform download's.
   */
  downloadMaxBytes: number;
}

/** An attached script, the adapter that fetches it, and the limits it is read within. */
interface ScriptSource {
  attachment: InboundAttachment;
  adapter: PlatformAdapter;
  limits: ScriptLimits;
  signal?: AbortSignal;
}

/** A script's cells and notes for the reply, or why it does not run (a sentence for the user). */
export type ScriptCells = { cells: CodeCell[]; notes: string[] } | { refused: string };

/**
 * Fetches an attached script through its adapter, at most `limits.maxBytes` (counted here: a declared size is a
 * claim), and reads its cells: the whole file in its language, or a notebook's code cells. A script over a limit,
 * not UTF-8 text, or an invalid notebook is refused with what to do.
 */
export async function readScript(o: ScriptSource): Promise<ScriptCells> {
  const { attachment, limits } = o;
  const kind = scriptKindOf(attachment.name);
  if (!kind) return { refused: `\`${attachment.name}\` is not a script I run: attach a ${SCRIPT_EXTENSIONS} file.` };
  if (attachment.bytes !== undefined && attachment.bytes > limits.maxBytes) return tooLarge(attachment, limits);
  let data: Buffer;
  try {
    data = await fetchBytes(o);
  } catch (err) {
    const e = toThreadlabError(err);
    if (e.code === 'cancelled') throw e;
    if (e.code === 'attachment_rejected' && e.details?.tooLarge) return tooLarge(attachment, limits);
    if (!e.isPolicy && !['attachment_rejected', 'platform_api'].includes(e.code)) throw e;
    return { refused: `\`${attachment.name}\` could not be fetched: ${e.message}` };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data).replace(/^\uFEFF/, '');
  } catch {
    return { refused: `\`${attachment.name}\` is not UTF-8 text, so it cannot run as a script.` };
  }
  if (text.includes('\u0000')) return { refused: `\`${attachment.name}\` holds binary data, not a script.` };
  if (kind !== 'notebook') {
    if (text.trim() === '') return { refused: `\`${attachment.name}\` is empty: nothing to run.` };
    return { cells: [{ language: kind, code: text }], notes: [] };
  }
  const notebook = notebookCells(text);
  if ('invalid' in notebook)
    return { refused: `\`${attachment.name}\` is not a notebook I can run: ${notebook.invalid}.` };
  if (notebook.cells.length === 0) return { refused: `\`${attachment.name}\` has no code cells: nothing to run.` };
  if (notebook.cells.length > limits.maxCells)
    return {
      refused: `\`${attachment.name}\` has ${notebook.cells.length} code cells; at most ${limits.maxCells} run from one message (THREADLAB_RUN_MAX_CELLS). Split the notebook, or run it in parts.`,
    };
  const skipped = notebook.markdownCells;
  const notes = [
    `_Running the ${notebook.cells.length} code cell${notebook.cells.length === 1 ? '' : 's'} of \`${attachment.name}\` in order${skipped ? ` (${skipped} markdown or raw cell${skipped === 1 ? '' : 's'} skipped)` : ''}._`,
  ];
  return { cells: notebook.cells, notes };
}

async function fetchBytes(o: ScriptSource): Promise<Buffer> {
  const { attachment, limits } = o;
  const over = () =>
    new ThreadlabError('attachment_rejected', 'over the script limit', { isPolicy: true, details: { tooLarge: true } });
  if (attachment.inlineBase64 !== undefined) {
    const data = Buffer.from(attachment.inlineBase64, 'base64');
    if (data.length > limits.maxBytes) throw over();
    return data;
  }
  const maxBytes = Math.max(limits.downloadMaxBytes, limits.maxBytes);
  const download = await o.adapter.download(attachment, o.signal ? { maxBytes, signal: o.signal } : { maxBytes });
  const stream = limitBytes(download.stream, { maxBytes: limits.maxBytes, tooLarge: over });
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

function tooLarge(attachment: InboundAttachment, limits: ScriptLimits): ScriptCells {
  const size = attachment.bytes !== undefined ? `${formatBytes(attachment.bytes)}, over` : 'over';
  return {
    refused: `\`${attachment.name}\` is ${size} the ${formatBytes(limits.maxBytes)} a script may have (THREADLAB_SCRIPT_MAX_KB); it did not run. Put the data in a separate file and attach both.`,
  };
}
