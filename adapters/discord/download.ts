import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { limitBytes } from '../../src/domain/byte-limit.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { InboundAttachment } from '../../src/domain/messages.js';
import type { AttachmentDownload } from '../../src/ports/platform-adapter.js';
import { formatBytes } from '../../src/domain/text/format.js';

const reject = (message: string, details?: Record<string, unknown>) =>
  new ThreadlabError('attachment_rejected', message, { isPolicy: true, ...(details ? { details } : {}) });

/**
 * Fetches a Discord attachment with a plain GET (attachment URLs are signed; no token is sent), stopping
 * the stream as soon as more than `maxBytes` arrived; the bytes are handed on as they arrive, never held whole. An HTML page where a non-HTML file was expected is refused.
 */
export async function downloadAttachment(
  attachment: InboundAttachment,
  options: { maxBytes: number; signal?: AbortSignal },
): Promise<AttachmentDownload> {
  const { maxBytes } = options;
  if (!attachment.url) throw reject(`\`${attachment.name}\` has no download address.`);
  if (attachment.bytes !== undefined && attachment.bytes > maxBytes) {
    throw reject(
      `\`${attachment.name}\` is ${formatBytes(attachment.bytes)}, over the ${formatBytes(maxBytes)} limit.`,
    );
  }
  let res: Response;
  try {
    res = await fetch(attachment.url, { redirect: 'follow', ...(options.signal ? { signal: options.signal } : {}) });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw new ThreadlabError(
      'platform_api',
      `Could not download \`${attachment.name}\` from Discord: ${(err as Error).message}`,
      { cause: err, isRetryable: true },
    );
  }
  if (!res.ok || !res.body) {
    throw new ThreadlabError(
      'platform_api',
      `Discord answered ${res.status} for \`${attachment.name}\`; it may have expired, upload it again.`,
      { isRetryable: res.status >= 500 },
    );
  }
  const type = res.headers.get('content-type') ?? '';
  const expectsHtml = /html/.test(attachment.mime ?? '') || /\.html?$/i.test(attachment.name);
  if (type.includes('text/html') && !expectsHtml) {
    await res.body.cancel();
    throw reject(`\`${attachment.name}\` came back as a web page, not the file; upload it again.`);
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body.cancel();
    throw reject(`\`${attachment.name}\` is ${formatBytes(declared)}, over the ${formatBytes(maxBytes)} limit.`);
  }
  const stream = limitBytes(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), {
    maxBytes,
    tooLarge: () => reject(`\`${attachment.name}\` is over the ${formatBytes(maxBytes)} limit; it was not added.`),
  });
  return { stream, ...(Number.isFinite(declared) ? { bytes: declared } : {}) };
}
