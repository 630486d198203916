import type { WebClient } from '@slack/web-api';
import type { InboundMessage } from '../../src/domain/messages.js';
import type { Reply, ReplyFile } from '../../src/domain/reply.js';
import type { ThreadlabError } from '../../src/domain/errors.js';
import type { Logger } from '../../src/logger.js';
import type { ArtifactRenderer } from '../../src/ports/artifact-renderer.js';
import type { PostedReply } from '../../src/ports/platform-adapter.js';
import { fitFiles } from '../../src/replies/fit-files.js';
import { fitImages } from '../../src/replies/fit-images.js';
import { toSlackError } from './errors.js';
import { MessagePlacer } from './place-messages.js';
import { context, planReply } from './reply-blocks.js';

/** Slack shows at most 10 files in one message. */
export const FILES_PER_UPLOAD = 10;

export interface PostReplyDeps {
  client: WebClient;
  logger: Logger;
  /** Largest upload, in bytes; bigger files are zipped or listed as omitted. */
  maxUploadBytes: number;
  /** When given, more than 10 images are fitted into 9 plus a contact sheet. */
  renderer?: ArtifactRenderer;
  maxImageDimensionPx: number;
}

type UploadFile = ReplyFile & { alt?: string; snippetType?: string };

/**
 * Posts a Reply into its thread: the Block Kit messages, then images and files with `filesUploadV2`
 * (channel_id + thread_ts), 10 per message. A failed upload is said in the thread rather than lost; a
 * failed message throws a ThreadlabError. A reply to `/interpreter help` goes privately to its response_url.
 * With `previous` (an earlier answer's message ts) the text replaces that answer in place; files and
 * images are always posted as new messages (Slack cannot swap a message's files). Returns the text
 * messages' ts.
 */
export async function postReply(
  deps: PostReplyDeps,
  message: InboundMessage,
  reply: Reply,
  previous?: string[],
): Promise<PostedReply> {
  const plan = planReply(reply);
  const responseUrl = message.replyContext?.responseUrl;
  if (message.replyContext?.ephemeral && typeof responseUrl === 'string') {
    await respond(responseUrl, plan.messages[0] ?? { text: reply.text, blocks: [] });
    return { messageIds: [] };
  }
  const { client } = deps;
  const channel = message.thread.channel;
  const threadTs = message.thread.thread;
  const placer = new MessagePlacer({ client, channel, threadTs, ...(previous ? { previous } : {}) });
  const post = (text: string, blocks: unknown[]): Promise<void> => placer.place(text, blocks);
  const fallbackFiles: ReplyFile[] = [];
  for (const m of plan.messages) {
    if (!m.fallback) {
      await post(m.text, m.blocks);
      continue;
    }
    try {
      await post(m.text, m.blocks);
    } catch (err) {
      // A workspace or client that does not take table blocks gets the table as monospace text instead.
      if ((err as ThreadlabError).details?.error !== 'invalid_blocks') throw err;
      deps.logger.warn({ err }, 'slack refused a table block; posting it as text');
      await post(m.text, m.fallback.blocks);
      if (m.fallback.file) fallbackFiles.push(m.fallback.file);
    }
  }

  const images = await fitReplyImages(deps, reply);
  const fitted = await fitFiles([...images, ...reply.files, ...plan.files, ...fallbackFiles], {
    maxBytes: deps.maxUploadBytes,
  });
  const problems: string[] = [];
  for (let i = 0; i < fitted.files.length; i += FILES_PER_UPLOAD) {
    const batch = fitted.files.slice(i, i + FILES_PER_UPLOAD) as UploadFile[];
    try {
      await client.filesUploadV2({
        channel_id: channel,
        thread_ts: threadTs,
        file_uploads: batch.map((f) => ({
          file: f.data,
          filename: f.name,
          title: f.name,
          ...(f.alt ? { alt_text: f.alt.slice(0, 1000) } : {}),
          ...(f.snippetType ? { snippet_type: f.snippetType } : {}),
        })),
      });
    } catch (err) {
      const error = toSlackError(err, 'files.uploadV2');
      deps.logger.error({ err: error, files: batch.map((f) => f.name) }, 'slack upload failed');
      problems.push(`:warning: Could not upload ${batch.map((f) => `\`${f.name}\``).join(', ')}: ${error.message}`);
    }
  }
  problems.push(...fitted.omitted.map((o) => `:paperclip: \`${o.name}\` was not attached: ${o.reason}`));
  if (problems.length > 0) await post(problems.join('\n'), problems.map(context));
  await placer.finish();
  return { messageIds: placer.placed };
}

/** Images become files in the thread; beyond 10, and with a renderer, the rest go into one contact sheet. */
async function fitReplyImages(deps: PostReplyDeps, reply: Reply): Promise<UploadFile[]> {
  const { renderer } = deps;
  const fitted =
    renderer && reply.images.length > FILES_PER_UPLOAD
      ? await fitImages(reply.images, {
          maxPerMessage: FILES_PER_UPLOAD,
          renderer,
          maxImageDimensionPx: deps.maxImageDimensionPx,
        })
      : { individual: reply.images };
  const all = fitted.contactSheet ? [...fitted.individual, fitted.contactSheet] : fitted.individual;
  return all.map((img) => ({ name: img.name, mime: img.mime, data: img.data, alt: img.alt }));
}

async function respond(url: string, body: { text: string; blocks: unknown[] }): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, ...body }),
  });
  if (!res.ok) throw toSlackError(new Error(`response_url answered ${res.status}`), 'response_url');
}
