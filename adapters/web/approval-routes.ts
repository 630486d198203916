import type { InboundMessage } from '../../src/domain/messages.js';
import { settledLine } from '../../src/governance/approval/approval-text.js';
import type { ApprovalPrompt, ApprovalSettled, ApprovalView } from '../../src/ports/approval.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import type { EventHub } from './event-hub.js';
import { readBody, sendJson, type Route, type RouteContext } from './http-util.js';
import { parseJsonBody } from './json-body.js';
import { WebRequestError } from './map-request.js';
import type { WebThreadStore } from './thread-store.js';

/** The web user: the page has one (whoever holds its address and token), so every press is the asker's. */
const WEB_USER = 'web-user';

/** Code waiting for Run or Skip in each thread, for a page that opens the thread while it waits. */
export class WebApprovals {
  /** Thread id → its waiting requests (a thread runs one job, so usually one; bounded by the core's gate). */
  private readonly pending = new Map<string, Map<string, ApprovalView>>();

  constructor(private readonly hub: EventHub) {}

  /** Shows the code on every page of the thread (an `approval` event) until it is settled. */
  ask(message: InboundMessage, view: ApprovalView): ApprovalPrompt {
    const threadId = message.thread.thread;
    const waiting = this.pending.get(threadId) ?? new Map<string, ApprovalView>();
    waiting.set(view.approvalId, view);
    this.pending.set(threadId, waiting);
    this.hub.publish(threadId, 'approval', view);
    return {
      settle: async (outcome: ApprovalSettled) => {
        waiting.delete(view.approvalId);
        if (waiting.size === 0 && this.pending.get(threadId) === waiting) this.pending.delete(threadId);
        const text = settledLine(outcome, (id) => (id === WEB_USER ? 'you' : id));
        this.hub.publish(threadId, 'approval_settled', { approvalId: view.approvalId, decision: outcome.kind, text });
      },
    };
  }

  list(threadId: string): ApprovalView[] {
    return [...(this.pending.get(threadId)?.values() ?? [])];
  }
}

/**
 * `GET /api/threads/:id/approvals` lists code waiting for a decision; `POST /api/threads/:id/approvals/:approvalId`
 * with `{"action": "run"|"skip"}` decides it: 200, or 409 when it is no longer waiting (decided or timed out).
 */
export function approvalRoutes(deps: {
  approvals: WebApprovals;
  handler: () => InboundHandler;
  store: WebThreadStore;
}): Route[] {
  const thread = (ctx: RouteContext) => {
    const found = deps.store.getThread(ctx.params.id ?? '');
    if (!found) throw new WebRequestError(404, 'No such thread.', 'not_found');
    return found;
  };
  return [
    {
      method: 'GET',
      pattern: '/api/threads/:id/approvals',
      handle: (ctx) => sendJson(ctx.res, 200, { approvals: deps.approvals.list(thread(ctx).id) }),
    },
    {
      method: 'POST',
      pattern: '/api/threads/:id/approvals/:approvalId',
      handle: async (ctx) => {
        const { id } = thread(ctx);
        const action = (parseJsonBody(await readBody(ctx.req, 1024), 4) as { action?: unknown } | null)?.action;
        if (action !== 'run' && action !== 'skip') {
          throw new WebRequestError(400, 'Send {"action": "run"} or {"action": "skip"}.', 'bad_request');
        }
        const approvalId = ctx.params.approvalId ?? '';
        if (!deps.approvals.list(id).some((v) => v.approvalId === approvalId)) {
          throw new WebRequestError(409, 'This code is no longer waiting: it was decided or timed out.', 'not_waiting');
        }
        const handler = deps.handler();
        const outcome = handler.onApproval
          ? await handler.onApproval('web', { approvalId, action, userId: WEB_USER })
          : { ok: false as const, reason: 'unknown' as const, message: 'Approval is not enabled.' };
        if (!outcome.ok) {
          const [status, code] = {
            not_allowed: [403, 'not_allowed'],
            unknown: [409, 'not_waiting'],
            unavailable: [503, 'unavailable'],
          }[outcome.reason] as [number, string];
          throw new WebRequestError(status, outcome.message, code);
        }
        sendJson(ctx.res, 200, { decision: outcome.decision });
      },
    },
  ];
}
