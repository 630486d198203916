import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { WebClient } from '@slack/web-api';
import { limitBytes } from '../../src/domain/byte-limit.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { InboundAttachment } from '../../src/domain/messages.js';
import type { AttachmentDownload } from '../../src/ports/platform-adapter.js';
import { formatBytes } from '../../src/domain/text/format.js';

export interface SlackDownloadOptions {
  client: WebClient;
  botToken: string;
  /** Origins the bot token may be sent to. A URL elsewhere is refused rather than leaking the token. */
  allowedOrigins: string[];
  maxBytes: number;
  signal?: AbortSignal;
  fetchFn?: typeof fetch;
}

/**
 * Fetches a user's file with the bot token. Checks the declared size, the HTTP status, the content type
 * (Slack answers a missing scope or an unshared file with a login page and status 200) and the size
 * again while streaming; the bytes are handed on as they arrive, never held whole.
 */
export async function downloadSlackFile(
  attachment: InboundAttachment,
  options: SlackDownloadOptions,
): Promise<AttachmentDownload> {
  const file = attachment.url ? attachment : await lookUp(attachment, options.client);
  const name = file.name;
  if (file.bytes !== undefined && file.bytes > options.maxBytes) throw tooLarge(name, file.bytes, options.maxBytes);
  const url = file.url!;
  if (!options.allowedOrigins.includes(new URL(url).origin)) {
    throw reject(`\`${name}\` is not hosted by Slack (${new URL(url).origin}); the bot only downloads Slack files.`);
  }
  const res = await (options.fetchFn ?? fetch)(url, {
    headers: { Authorization: `Bearer ${options.botToken}` },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new ThreadlabError('platform_api', `Slack answered ${res.status} when downloading \`${name}\`.`, {
      isRetryable: res.status >= 500 || res.status === 429,
      details: { status: res.status, file: attachment.id },
    });
  }
  const contentType = (res.headers.get('content-type') ?? '').toLowerCase();
  const expectsHtml = /html/.test(file.mime ?? '') || /\.html?$/i.test(name);
  if (contentType.startsWith('text/html') && !expectsHtml) {
    await res.body?.cancel();
    throw reject(
      `Slack sent a web page instead of \`${name}\`: the bot cannot read this file. Check that the app has the files:read scope and is in this channel, then share the file again.`,
    );
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await res.body?.cancel();
    throw tooLarge(name, declared, options.maxBytes);
  }
  const body = res.body ? Readable.fromWeb(res.body as WebReadableStream<Uint8Array>) : Readable.from([]);
  return {
    stream: limitBytes(body, {
      maxBytes: options.maxBytes,
      tooLarge: (received) => tooLarge(name, received, options.maxBytes, true),
    }),
    ...(Number.isFinite(declared) ? { bytes: declared } : file.bytes !== undefined ? { bytes: file.bytes } : {}),
  };
}

async function lookUp(attachment: InboundAttachment, client: WebClient): Promise<InboundAttachment> {
  const res = await client.files.info({ file: attachment.id });
  const info = res.file;
  const url = info?.url_private_download ?? info?.url_private;
  if (!info || !url) throw reject(`Slack gave no download address for file ${attachment.id}.`);
  return {
    ...attachment,
    url,
    name: attachment.name === attachment.id && info.name ? info.name : attachment.name,
    ...(info.mimetype ? { mime: info.mimetype } : {}),
    ...(typeof info.size === 'number' ? { bytes: info.size } : {}),
  };
}

function tooLarge(name: string, bytes: number, maxBytes: number, atLeast = false): ThreadlabError {
  return reject(
    `\`${name}\` is ${atLeast ? 'over ' : ''}${formatBytes(bytes)}, more than the ${formatBytes(maxBytes)} limit (THREADLAB_MAX_FILE_MB raises it).`,
  );
}

function reject(message: string): ThreadlabError {
  return new ThreadlabError('attachment_rejected', message, { isPolicy: true });
}
