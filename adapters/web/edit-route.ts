import { randomUUID } from 'node:crypto';
import { readBody, sendJson, type Route, type RouteContext } from './http-util.js';
import { parseJsonBody } from './json-body.js';
import { toInboundMessage, WebRequestError } from './map-request.js';
import type { MessageIntake } from './message-intake.js';
import type { WebThreadStore } from './thread-store.js';
import type { WebMessage } from './types.js';

/**
 * `POST /api/threads/:id/messages/:messageId/edit` with `{"text": "…"}`: the page's Edit action. The
 * user's message is revised (same id) and handed to the core as an edit of the original, through the
 * same queue and limits as a new message; the core re-runs it and replaces its answer in place when it
 * is the thread's latest exchange. A text left unchanged is answered 200 `{unchanged: true}` and not run.
 */
export function editRoute(deps: {
  store: WebThreadStore;
  intake: MessageIntake;
  maxTextBytes: number;
  thread: (ctx: RouteContext) => { id: string };
}): Route {
  const { store } = deps;
  return {
    method: 'POST',
    pattern: '/api/threads/:id/messages/:messageId/edit',
    handle: async (ctx) => {
      const { id: threadId } = deps.thread(ctx);
      // JSON quoting can double a text's size; anything bigger cannot hold an allowed text.
      const body = parseJsonBody(await readBody(ctx.req, deps.maxTextBytes * 2 + 1024), 4);
      const text = (body as { text?: unknown } | null)?.text;
      if (typeof text !== 'string') throw new WebRequestError(400, 'Send {"text": "…"}.', 'bad_request');
      if (Buffer.byteLength(text) > deps.maxTextBytes) {
        throw new WebRequestError(413, `The text is longer than ${deps.maxTextBytes} bytes.`, 'text_too_long');
      }
      const existing = await store.findMessage(threadId, ctx.params.messageId ?? '');
      if (!existing || existing.role !== 'user') throw new WebRequestError(404, 'No such message.', 'not_found');
      if (existing.command) {
        throw new WebRequestError(409, `A \`${existing.command}\` command cannot be edited.`, 'not_editable');
      }
      if (existing.text === text) return sendJson(ctx.res, 200, { message: existing, unchanged: true });
      const revised: WebMessage = { ...existing, text, revisedAtMs: Date.now() };
      const inbound = toInboundMessage({
        messageId: existing.id,
        threadId,
        text,
        attachments: existing.attachments ?? [],
        receivedAtMs: revised.revisedAtMs!,
      });
      const originalId = inbound.id;
      inbound.id = `${originalId}:edit:${randomUUID()}`;
      inbound.edit = { originalId, previousText: existing.text };
      await deps.intake.submit(revised, inbound);
      sendJson(ctx.res, 202, { message: revised });
    },
  };
}
