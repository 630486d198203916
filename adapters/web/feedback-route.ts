import { z } from 'zod';
import { FEEDBACK_COMMENT_MAX_CHARS } from '../../src/domain/feedback.js';
import { threadKey } from '../../src/domain/thread-key.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import { readBody, sendJson, type Route } from './http-util.js';
import { parseJsonBody } from './json-body.js';
import { WebRequestError, webThreadRef } from './map-request.js';
import type { WebThreadStore } from './thread-store.js';

/** The page's one user (whoever holds its address and token), as approval presses name it. */
const WEB_USER = 'web-user';

const bodySchema = z.object({
  verdict: z.enum(['good', 'bad']),
  comment: z.string().max(FEEDBACK_COMMENT_MAX_CHARS).optional(),
});

/**
 * `POST /api/threads/:id/messages/:messageId/feedback` with `{"verdict": "good"|"bad", "comment"?}` (a comment
 * of at most 500 characters): the page's 👍/👎 on an answer of the model. 200 `{verdict, previous?}`; 400 for a
 * malformed body, 404 for an answer the ledger does not hold, 403 refused, 503 not recorded now.
 */
export function feedbackRoute(deps: { handler: () => InboundHandler; store: WebThreadStore }): Route {
  return {
    method: 'POST',
    pattern: '/api/threads/:id/messages/:messageId/feedback',
    handle: async (ctx) => {
      const found = deps.store.getThread(ctx.params.id ?? '');
      if (!found) throw new WebRequestError(404, 'No such thread.', 'not_found');
      const parsed = bodySchema.safeParse(parseJsonBody(await readBody(ctx.req, 4096), 4));
      if (!parsed.success)
        throw new WebRequestError(
          400,
          `Send {"verdict": "good"} or {"verdict": "bad"}, with an optional "comment" of at most ${FEEDBACK_COMMENT_MAX_CHARS} characters.`,
          'bad_request',
        );
      const handler = deps.handler();
      if (!handler.onFeedback) throw new WebRequestError(503, 'Feedback is not recorded here.', 'unavailable');
      const outcome = await handler.onFeedback({
        threadKey: threadKey(webThreadRef(found.id)),
        answerRef: (ctx.params.messageId ?? '').slice(0, 200),
        user: { id: WEB_USER },
        verdict: parsed.data.verdict,
        ...(parsed.data.comment ? { comment: parsed.data.comment } : {}),
      });
      if (!outcome.recorded) {
        const status = { unknown_answer: 404, not_allowed: 403, unavailable: 503 }[outcome.reason];
        throw new WebRequestError(status, outcome.message, outcome.reason);
      }
      sendJson(ctx.res, 200, {
        verdict: parsed.data.verdict,
        ...(outcome.previous ? { previous: outcome.previous } : {}),
      });
    },
  };
}
