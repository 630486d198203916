import type { InboundMessage } from '../../src/domain/messages.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import type { EventHub } from './event-hub.js';
import { WebRequestError } from './map-request.js';
import type { WebThreadStore } from './thread-store.js';
import type { WebMessage } from './types.js';

/**
 * Hands user messages to the core and stores them only once it accepted them: a message a limit
 * refused is answered with 429/503 and never enters the history. Replies the core posts while it is
 * still deciding (a refusal's notice, a command's immediate answer) are held and posted after the
 * user's message when it is accepted, dropped when it is refused (the HTTP answer carries the refusal).
 */
export class MessageIntake {
  private readonly pending = new Map<string, (() => Promise<void>)[]>();

  constructor(private readonly deps: { store: WebThreadStore; hub: EventHub; handler: () => InboundHandler }) {}

  /** Submits a message; throws a WebRequestError when the core refuses it (and stores nothing). */
  async submit(message: WebMessage, inbound: InboundMessage): Promise<void> {
    const held: (() => Promise<void>)[] = [];
    this.pending.set(inbound.id, held);
    let outcome;
    try {
      outcome = await this.deps.handler().onMessage(inbound);
      if (outcome && !outcome.accepted) {
        const status = outcome.reason === 'rate_limited' ? 429 : 503;
        throw new WebRequestError(status, outcome.message, outcome.reason);
      }
      // A typed `/files` is read as a command by the core; the history says so (and it titles no thread).
      if (outcome?.command) message.command = outcome.command;
      await this.deps.store.appendMessage(message);
    } catch (err) {
      this.pending.delete(inbound.id);
      throw err;
    }
    this.deps.hub.publish(message.threadId, 'message', message);
    // The job may have started while the message was being stored: what it sent meanwhile (and while these
    // are sent) still waits here, so every event follows the message on the stream, in order.
    while (held.length > 0) await held.shift()!();
    this.pending.delete(inbound.id);
  }

  /** Holds a reply to a message the core is still deciding on; false when the message was already accepted. */
  hold(inboundId: string, post: () => Promise<void>): boolean {
    const held = this.pending.get(inboundId);
    if (!held) return false;
    held.push(post);
    return true;
  }
}
