import { createReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import { threadKey } from '../../src/domain/thread-key.js';
import type { EventHub } from './event-hub.js';
import { readBody, sendJson, type Route, type RouteContext } from './http-util.js';
import { parseJsonBody } from './json-body.js';
import { normaliseMime, userMessage, WEB_USER, webThreadRef, WebRequestError } from './map-request.js';
import type { MessageBodyLimits } from './message-body.js';
import type { MessageIntake } from './message-intake.js';
import { editRoute } from './edit-route.js';
import { messageRoute } from './message-route.js';
import type { WebThreadStore } from './thread-store.js';

export interface ApiDeps {
  store: WebThreadStore;
  hub: EventHub;
  intake: MessageIntake;
  /** The core, known once the adapter started. */
  handler: () => InboundHandler;
  limits: MessageBodyLimits;
  /** Threads kept; creating more is refused (507) until some are deleted. */
  maxThreads: number;
  logger: Logger;
}

/** Most data sources an API answer lists. */
export const MAX_LISTED_SOURCES = 50;

/** The data sources the web chat's user may query in a thread: names and descriptions, never a connection. */
function sourcesOf(deps: ApiDeps, threadId: string): Array<{ name: string; kind: string; description?: string }> {
  const listed = deps.handler().sourcesFor?.(webThreadRef(threadId), WEB_USER) ?? [];
  return listed.slice(0, MAX_LISTED_SOURCES).map((s) => ({
    name: s.name,
    kind: s.kind,
    ...(s.description ? { description: s.description } : {}),
  }));
}

const INLINE_IMAGE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Messages of one `GET …/messages` page without `?limit=`, and the most one may ask for. */
export const MESSAGES_PAGE = { defaultLimit: 100, maxLimit: 500 };

function pageLimit(raw: string | null): number {
  if (raw === null) return MESSAGES_PAGE.defaultLimit;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MESSAGES_PAGE.maxLimit) {
    throw new WebRequestError(400, `limit must be a whole number from 1 to ${MESSAGES_PAGE.maxLimit}.`, 'bad_limit');
  }
  return limit;
}

/** The JSON API of the web chat (see adapters/web/API.md). */
export function apiRoutes(deps: ApiDeps): Route[] {
  const { store, hub } = deps;
  /** Threads being deleted: they answer 404 at once, so nothing new starts in them meanwhile. */
  const deleting = new Set<string>();

  const thread = (ctx: RouteContext) => {
    const found = store.getThread(ctx.params.id ?? '');
    if (!found || deleting.has(found.id)) throw new WebRequestError(404, 'No such thread.', 'not_found');
    return found;
  };

  return [
    { method: 'GET', pattern: '/api/health', handle: ({ res }) => sendJson(res, 200, { ok: true }) },
    {
      method: 'GET',
      pattern: '/api/info',
      handle: ({ res }) =>
        sendJson(res, 200, {
          platform: 'web',
          maxUploadBytes: deps.limits.maxFileBytes,
          maxTextBytes: deps.limits.maxTextBytes,
          // The sources of the web chat's channel (every thread of the page is in it).
          sources: sourcesOf(deps, ''),
        }),
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
        let title = '';
        const body = await readBody(req, 64 * 1024);
        if (body.length > 0 && (req.headers['content-type'] ?? '').includes('json')) {
          const given = (parseJsonBody(body, 8) as { title?: unknown } | null)?.title;
          if (typeof given === 'string') title = given;
        }
        if (store.listThreads().length >= deps.maxThreads) {
          throw new WebRequestError(
            507,
            `There are ${deps.maxThreads} threads already; delete some first.`,
            'too_many_threads',
          );
        }
        sendJson(res, 201, { thread: await store.createThread(title) });
      },
    },
    {
      method: 'GET',
      pattern: '/api/threads/:id',
      handle: (ctx) => {
        const found = thread(ctx);
        sendJson(ctx.res, 200, {
          thread: { ...found, busy: hub.isBusy(found.id), sources: sourcesOf(deps, found.id) },
        });
      },
    },
    {
      method: 'DELETE',
      pattern: '/api/threads/:id',
      handle: async (ctx) => {
        const { id } = thread(ctx);
        deleting.add(id);
        try {
          hub.close(id);
          // The core removes the thread's container, files and memory; only then is the history deleted,
          // so a failure leaves a thread that can be deleted again rather than orphaned files.
          const handler = deps.handler();
          const key = threadKey(webThreadRef(id));
          if (handler.onThreadDeleted) await handler.onThreadDeleted(key);
          else await handler.onCancel(key, WEB_USER);
          await store.deleteThread(id);
        } finally {
          deleting.delete(id);
        }
        ctx.res.writeHead(204).end();
      },
    },
    {
      method: 'GET',
      pattern: '/api/threads/:id/messages',
      handle: async (ctx) => {
        const { id } = thread(ctx);
        const limit = pageLimit(ctx.url.searchParams.get('limit'));
        const before = ctx.url.searchParams.get('before') ?? undefined;
        const page = await store.page(id, { limit, ...(before !== undefined ? { before } : {}) });
        if (!page)
          throw new WebRequestError(
            400,
            `No message ${JSON.stringify(before?.slice(0, 80))} in this thread.`,
            'bad_cursor',
          );
        const first = page.messages[0];
        sendJson(ctx.res, 200, { ...page, ...(page.hasMore && first ? { before: first.id } : {}) });
      },
    },
    messageRoute({ store, intake: deps.intake, limits: deps.limits, thread }),
    editRoute({ store, intake: deps.intake, maxTextBytes: deps.limits.maxTextBytes, thread }),
    {
      method: 'GET',
      pattern: '/api/threads/:id/events',
      handle: (ctx) => {
        const { id } = thread(ctx);
        const raw = ctx.req.headers['last-event-id'] ?? ctx.url.searchParams.get('lastEventId') ?? undefined;
        const last = raw === undefined || raw === '' || Number.isNaN(Number(raw)) ? undefined : Number(raw);
        hub.subscribe(id, ctx.res, last);
        ctx.req.socket.setTimeout(0);
      },
    },
    {
      method: 'POST',
      pattern: '/api/threads/:id/stop',
      handle: async (ctx) => {
        const { id } = thread(ctx);
        hub.publish(id, 'stopping', { atMs: Date.now() });
        const outcome = await deps.handler().onCancel(threadKey(webThreadRef(id)), WEB_USER);
        if (outcome && !outcome.accepted) throw new WebRequestError(403, outcome.message, outcome.reason);
        sendJson(ctx.res, 202, { ok: true });
      },
    },
    {
      method: 'POST',
      pattern: '/api/threads/:id/reset',
      handle: async (ctx) => {
        const { id: threadId } = thread(ctx);
        const { message, inbound } = userMessage({
          messageId: randomUUID(),
          threadId,
          text: '/reset',
          attachments: [],
          command: { name: 'reset' },
        });
        await deps.intake.submit(message, inbound);
        sendJson(ctx.res, 202, { message });
      },
    },
    {
      method: 'GET',
      pattern: '/api/files/:id',
      handle: async (ctx) => {
        const meta = await store.blobMeta(ctx.params.id ?? '');
        if (!meta || !store.getThread(meta.threadId)) throw new WebRequestError(404, 'No such file.', 'not_found');
        // Stored types are normalised on upload; older records are checked again, as they become a header.
        const mime = normaliseMime(meta.mime) ?? 'application/octet-stream';
        const inline = INLINE_IMAGE.has(mime) && ctx.url.searchParams.get('download') !== '1';
        ctx.res.writeHead(200, {
          'content-type': mime,
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
