import { createReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import { threadKey } from '../../src/domain/thread-key.js';
import type { EventHub } from './event-hub.js';
import { readBody, sendJson, type Route, type RouteContext } from './http-util.js';
import { parseMessageBody, toInboundMessage, webThreadRef, WebRequestError, parseTextCommand } from './map-request.js';
import { blobUrl } from './reply-mapping.js';
import type { WebThreadStore } from './thread-store.js';
import type { WebAttachment, WebMessage } from './types.js';

export interface ApiDeps {
  store: WebThreadStore;
  hub: EventHub;
  /** The core, known once the adapter started. */
  handler: () => InboundHandler;
  maxUploadBytes: number;
  maxRequestBytes: number;
  logger: Logger;
}

const INLINE_IMAGE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** The JSON API of the web chat (see adapters/web/API.md). */
export function apiRoutes(deps: ApiDeps): Route[] {
  const { store, hub } = deps;

  const thread = (ctx: RouteContext) => {
    const found = store.getThread(ctx.params.id ?? '');
    if (!found) throw new WebRequestError(404, 'No such thread.', 'not_found');
    return found;
  };

  const submit = async (message: WebMessage, inbound: ReturnType<typeof toInboundMessage>): Promise<void> => {
    await store.appendMessage(message);
    hub.publish(message.threadId, 'message', message);
    try {
      await deps.handler().onMessage(inbound);
    } catch (err) {
      deps.logger.error({ err, thread: message.threadId }, 'the core refused a web message');
      const notice: WebMessage = {
        id: randomUUID(),
        threadId: message.threadId,
        role: 'bot',
        kind: 'error',
        createdAtMs: Date.now(),
        text: `The message could not be queued: ${err instanceof Error ? err.message : String(err)}`,
      };
      await store.appendMessage(notice);
      hub.publish(message.threadId, 'reply', notice);
    }
  };

  return [
    { method: 'GET', pattern: '/api/health', handle: ({ res }) => sendJson(res, 200, { ok: true }) },
    {
      method: 'GET',
      pattern: '/api/info',
      handle: ({ res }) => sendJson(res, 200, { platform: 'web', maxUploadBytes: deps.maxUploadBytes }),
    },
    {
      method: 'GET',
      pattern: '/api/threads',
      handle: ({ res }) =>
        sendJson(res, 200, { threads: store.listThreads().map((t) => ({ ...t, busy: hub.isBusy(t.id) })) }),
    },
    {
      method: 'POST',
      pattern: '/api/threads',
      handle: async ({ req, res }) => {
        const body = await readBody(req, 64 * 1024);
        let title = '';
        if (body.length > 0 && (req.headers['content-type'] ?? '').includes('json')) {
          const parsed = JSON.parse(body.toString('utf8') || '{}') as { title?: unknown };
          if (typeof parsed.title === 'string') title = parsed.title;
        }
        sendJson(res, 201, { thread: await store.createThread(title) });
      },
    },
    {
      method: 'GET',
      pattern: '/api/threads/:id',
      handle: (ctx) => sendJson(ctx.res, 200, { thread: { ...thread(ctx), busy: hub.isBusy(thread(ctx).id) } }),
    },
    {
      method: 'DELETE',
      pattern: '/api/threads/:id',
      handle: async (ctx) => {
        const { id } = thread(ctx);
        if (hub.isBusy(id)) await deps.handler().onCancel(threadKey(webThreadRef(id)));
        await store.deleteThread(id);
        hub.close(id);
        ctx.res.writeHead(204).end();
      },
    },
    {
      method: 'GET',
      pattern: '/api/threads/:id/messages',
      handle: async (ctx) => sendJson(ctx.res, 200, { messages: await store.messages(thread(ctx).id) }),
    },
    {
      method: 'POST',
      pattern: '/api/threads/:id/messages',
      handle: async (ctx) => {
        const { id: threadId } = thread(ctx);
        const body = await readBody(ctx.req, deps.maxRequestBytes);
        const posted = await parseMessageBody(ctx.req.headers['content-type'], body, {
          maxFileBytes: deps.maxUploadBytes,
        });
        const messageId = posted.clientId ?? randomUUID();
        if (posted.clientId) {
          const existing = (await store.messages(threadId)).find((m) => m.id === posted.clientId);
          if (existing) return sendJson(ctx.res, 200, { message: existing, duplicate: true });
        }
        const attachments: WebAttachment[] = [];
        for (const file of posted.files) {
          const meta = await store.putBlob(threadId, file);
          attachments.push({ id: meta.id, name: meta.name, mime: meta.mime, bytes: meta.bytes, url: blobUrl(meta.id) });
        }
        const command = parseTextCommand(posted.text);
        const createdAtMs = Date.now();
        const message: WebMessage = {
          id: messageId,
          threadId,
          role: 'user',
          createdAtMs,
          text: posted.text,
          attachments,
        };
        if (command) message.command = command.name;
        await submit(
          message,
          toInboundMessage({ messageId, threadId, text: posted.text, attachments, receivedAtMs: createdAtMs }),
        );
        sendJson(ctx.res, 202, { message });
      },
    },
    {
      method: 'GET',
      pattern: '/api/threads/:id/events',
      handle: (ctx) => {
        const { id } = thread(ctx);
        const raw = ctx.req.headers['last-event-id'] ?? ctx.url.searchParams.get('lastEventId') ?? undefined;
        const last = raw === undefined || raw === '' || Number.isNaN(Number(raw)) ? undefined : Number(raw);
        ctx.req.socket.setTimeout(0);
        hub.subscribe(id, ctx.res, last);
      },
    },
    {
      method: 'POST',
      pattern: '/api/threads/:id/stop',
      handle: async (ctx) => {
        const { id } = thread(ctx);
        hub.publish(id, 'stopping', { atMs: Date.now() });
        await deps.handler().onCancel(threadKey(webThreadRef(id)));
        sendJson(ctx.res, 202, { ok: true });
      },
    },
    {
      method: 'POST',
      pattern: '/api/threads/:id/reset',
      handle: async (ctx) => {
        const { id: threadId } = thread(ctx);
        const messageId = randomUUID();
        const createdAtMs = Date.now();
        const message: WebMessage = {
          id: messageId,
          threadId,
          role: 'user',
          createdAtMs,
          text: '/reset',
          command: 'reset',
        };
        await submit(
          message,
          toInboundMessage({
            messageId,
            threadId,
            text: '/reset',
            attachments: [],
            command: { name: 'reset' },
            receivedAtMs: createdAtMs,
          }),
        );
        sendJson(ctx.res, 202, { message });
      },
    },
    {
      method: 'GET',
      pattern: '/api/files/:id',
      handle: async (ctx) => {
        const meta = await store.blobMeta(ctx.params.id ?? '');
        if (!meta || !store.getThread(meta.threadId)) throw new WebRequestError(404, 'No such file.', 'not_found');
        const inline = INLINE_IMAGE.has(meta.mime) && ctx.url.searchParams.get('download') !== '1';
        ctx.res.writeHead(200, {
          'content-type': meta.mime,
          'content-length': String(meta.bytes),
          'content-disposition': contentDisposition(inline ? 'inline' : 'attachment', meta.name),
          'content-security-policy': "default-src 'none'; sandbox",
          'cache-control': 'private, max-age=86400, immutable',
        });
        if (ctx.req.method === 'HEAD') return void ctx.res.end();
        createReadStream(store.blobPath(meta.id))
          .on('error', () => ctx.res.destroy())
          .pipe(ctx.res);
      },
    },
  ];
}
