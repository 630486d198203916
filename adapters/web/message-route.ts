import { randomUUID } from 'node:crypto';
import { userMessage } from './map-request.js';
import { readMessageBody, type MessageBodyLimits } from './message-body.js';
import { discardFiles } from './multipart-stream.js';
import type { MessageIntake } from './message-intake.js';
import { blobUrl } from './reply-mapping.js';
import { sendJson, type Route, type RouteContext } from './http-util.js';
import type { WebThreadStore } from './thread-store.js';
import type { WebAttachment } from './types.js';

/** `POST /api/threads/:id/messages`: reads the body within its limits, then stores and submits the message. */
export function messageRoute(deps: {
  store: WebThreadStore;
  intake: MessageIntake;
  limits: MessageBodyLimits;
  thread: (ctx: RouteContext) => { id: string };
}): Route {
  const { store } = deps;
  return {
    method: 'POST',
    pattern: '/api/threads/:id/messages',
    handle: async (ctx) => {
      const { id: threadId } = deps.thread(ctx);
      const posted = await readMessageBody(ctx.req, { tmpDir: store.tmpDir, limits: deps.limits });
      const attachments: WebAttachment[] = [];
      try {
        const messageId = posted.clientId ?? randomUUID();
        if (posted.clientId) {
          const existing = await store.findMessage(threadId, posted.clientId);
          if (existing) {
            await discardFiles(posted.files);
            return sendJson(ctx.res, 200, { message: existing, duplicate: true });
          }
        }
        for (const file of posted.files) {
          const meta = await store.adoptBlob(threadId, file);
          attachments.push({ id: meta.id, name: meta.name, mime: meta.mime, bytes: meta.bytes, url: blobUrl(meta.id) });
        }
        const { message, inbound } = userMessage({ messageId, threadId, text: posted.text, attachments });
        await deps.intake.submit(message, inbound);
        sendJson(ctx.res, 202, { message });
      } catch (err) {
        // Refused or failed: neither the uploads nor the message stay behind.
        await discardFiles(posted.files);
        await Promise.all(attachments.map((a) => store.removeBlob(a.id)));
        throw err;
      }
    },
  };
}
