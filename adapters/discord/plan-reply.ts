import type { Reply, ReplyImage } from '../../src/domain/reply.js';
import { DEFAULT_MAX_IMAGE_DIMENSION_PX, type ArtifactRenderer } from '../../src/ports/artifact-renderer.js';
import { fitFiles } from '../../src/replies/fit-files.js';
import { fitImages } from '../../src/replies/fit-images.js';
import { formatBytes } from '../../src/domain/text/format.js';
import { splitMessage } from '../../src/replies/split-message.js';
import { uploadedFileLinks, type UploadOutcome } from '../../src/replies/file-link-text.js';
import type { FittedFiles } from '../../src/replies/fit-files.js';
import { DISCORD_MESSAGE_CHARS } from './profile.js';
import { replyParts } from './reply-text.js';
import { tableMessage } from './table-message.js';
import type { OutgoingFile, OutgoingMessage } from './target.js';

/** Attachments Discord shows on one message. */
export const MAX_ATTACHMENTS_PER_MESSAGE = 10;

export interface PlanOptions {
  /** Upload limit per file and per message, in bytes. */
  uploadLimitBytes: number;
  /** Makes a contact sheet when there are more than 10 images; without one, images go 10 a message. */
  renderer?: ArtifactRenderer;
  /** Longest side of a contact sheet. @defaultValue DEFAULT_MAX_IMAGE_DIMENSION_PX (2048) */
  maxImageDimensionPx?: number;
  /** More text messages than this and the answer goes as `answer.txt` with its beginning shown. @defaultValue 4 */
  maxTextMessages?: number;
}

const toFile = (image: ReplyImage): OutgoingFile => ({
  name: image.name,
  mime: image.mime,
  data: image.data,
  description: image.alt,
});

async function imageFiles(images: ReplyImage[], options: PlanOptions): Promise<OutgoingFile[]> {
  if (images.length === 0) return [];
  if (!options.renderer) return images.map(toFile);
  const fitted = await fitImages(images, {
    maxPerMessage: MAX_ATTACHMENTS_PER_MESSAGE,
    renderer: options.renderer,
    maxImageDimensionPx: options.maxImageDimensionPx ?? DEFAULT_MAX_IMAGE_DIMENSION_PX,
  });
  return [...fitted.individual, ...(fitted.contactSheet ? [fitted.contactSheet] : [])].map(toFile);
}

/**
 * The text messages of a reply. Past `maxTextMessages` the whole markdown goes as `answer.txt` and its
 * beginning is shown, followed by the footer (the figures check and timings), so the footer is never only
 * in the file.
 */
function textChunks(
  parts: { body: string; footer: string },
  maxTextMessages: number,
): { chunks: string[]; fullText?: OutgoingFile } {
  const maxChars = DISCORD_MESSAGE_CHARS;
  const markdown = [parts.body, parts.footer].filter(Boolean).join('\n\n');
  const chunks = markdown.trim() ? splitMessage(markdown, { maxChars }) : [];
  if (chunks.length <= maxTextMessages) return { chunks };
  const footer = parts.footer ? `\n\n${parts.footer}` : '';
  const note = `\n\n… the full answer is attached as \`answer.txt\`.${footer}`;
  const head = splitMessage(parts.body, { maxChars: maxChars - note.length })[0] ?? '';
  return {
    chunks: [head + note],
    fullText: {
      name: 'answer.txt',
      mime: 'text/plain',
      data: Buffer.from(markdown, 'utf8'),
      description: 'the full answer',
    },
  };
}

/** Adds files to messages: at most 10 a message and at most `limit` bytes a message, in order. */
function packFiles(messages: OutgoingMessage[], files: OutgoingFile[], limit: number): void {
  for (const file of files) {
    const last = messages[messages.length - 1];
    const used = last ? last.files.reduce((n, f) => n + f.data.length, 0) : 0;
    if (last && last.files.length < MAX_ATTACHMENTS_PER_MESSAGE && used + file.data.length <= limit)
      last.files.push(file);
    else messages.push({ content: '', files: [file] });
  }
}

/** Which of the reply's files Discord attaches zipped, and which not at all (for the words of the answer's links). */
export function uploadOutcome(reply: Reply, o: { fittedFiles: FittedFiles; tooBig: OutgoingFile[] }): UploadOutcome {
  const attached = new Set(o.fittedFiles.files.map((f) => f.name));
  const renamed = new Map<string, string>();
  for (const file of reply.files)
    if (!attached.has(file.name) && attached.has(`${file.name}.zip`)) renamed.set(file.name, `${file.name}.zip`);
  const refused = new Map<string, string>(
    [...o.fittedFiles.omitted, ...o.tooBig].map((f) => [f.name, "over this channel's upload limit"] as const),
  );
  return { renamed, refused };
}

/**
 * Turns a Reply into Discord messages: text split at 2,000 characters with code fences kept valid (or
 * attached as `answer.txt` when very long), images on the last text message (more than 10 become a contact
 * sheet), files after them within the upload limit (zipped, or named as omitted when still too large).
 */
export async function planReply(reply: Reply, options: PlanOptions): Promise<OutgoingMessage[]> {
  const limit = options.uploadLimitBytes;
  const fittedFiles = await fitFiles(reply.files, { maxBytes: limit });
  const images = await imageFiles(reply.images, options);
  const tooBig = images.filter((i) => i.data.length > limit);
  const omitted = [
    ...fittedFiles.omitted,
    ...tooBig.map((i) => ({
      name: i.name,
      reason: `${formatBytes(i.data.length)} is over this channel's ${formatBytes(limit)} upload limit`,
    })),
  ];
  const text = uploadedFileLinks(reply.text, reply.fileLinks, uploadOutcome(reply, { fittedFiles, tooBig }));
  const { chunks, fullText } = textChunks(replyParts({ ...reply, text }, omitted), options.maxTextMessages ?? 4);
  const messages: OutgoingMessage[] = chunks.map((content) => ({ content, files: [] }));
  // Each table in a message of its own after the answer (Discord draws no tables: aligned monospace).
  messages.push(...(reply.tables ?? []).map(tableMessage));
  const files: OutgoingFile[] = [
    ...images.filter((i) => i.data.length <= limit),
    ...(fullText ? [fullText] : []),
    ...fittedFiles.files.map((f) => ({
      name: f.name,
      mime: f.mime,
      data: f.data,
      ...(f.description ? { description: f.description } : {}),
    })),
  ];
  packFiles(messages, files, limit);
  return messages.filter((m) => m.content.length > 0 || m.files.length > 0);
}
