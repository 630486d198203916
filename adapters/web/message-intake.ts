import type { InboundMessage } from '../../src/domain/messages.js';
import type { InboundHandler, InboundOutcome } from '../../src/ports/platform-adapter.js';
import type { EventHub } from './event-hub.js';
import { WebRequestError } from './map-request.js';
import type { WebThreadStore } from './thread-store.js';
import type { WebMessage } from './types.js';

/** Something the job posted for a message still being stored: run once the message is on the stream, or dropped. */
interface Held {
  post: () => Promise<void>;
  drop: () => void;
}

export interface MessageIntakeDeps {
  store: WebThreadStore;
  hub: EventHub;
  handler: () => InboundHandler;
  /**
   * Gives an accepted message's immediate answer (a stop's "Stopped."), after the message is on the stream.
   * @defaultValue none: only the job's answers are posted
   */
  answer?: (inbound: InboundMessage, outcome: InboundOutcome) => Promise<void>;
}

/**
 * Hands user messages to the core and stores them only once it accepted them: a message a limit
 * refused is answered with 429/503 and never enters the history. The core posts nothing while it decides;
 * what the message's job posts while the message is still being stored is held and posted after it.
 */
export class MessageIntake {
  /** Messages being submitted, with what their job posted meanwhile. */
  private readonly pending = new Map<string, Held[]>();

  constructor(private readonly deps: MessageIntakeDeps) {}

  /** Submits a message; throws a WebRequestError when the core refuses it (and stores nothing). */
  async submit(message: WebMessage, inbound: InboundMessage): Promise<void> {
    const held: Held[] = [];
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
      for (const h of held) h.drop(); // the HTTP answer carries the refusal
      throw err;
    }
    this.deps.hub.publish(message.threadId, 'message', message);
    // The job may have started while the message was being stored: what it sent meanwhile (and while these
    // are sent) still waits here, so every event follows the message on the stream, in order.
    while (held.length > 0) await held.shift()!.post();
    this.pending.delete(inbound.id);
    if (outcome) await this.deps.answer?.(inbound, outcome);
  }

  /**
   * Runs `post` now, or once the message is on the stream when it is still being submitted. Resolves with what
   * `post` returned (the answer's place, which the edit ledger keeps), or `undefined` when nothing was posted
   * (the message was refused).
   */
  afterMessage<T>(inboundId: string, post: () => Promise<T>): Promise<T | undefined> {
    const held = this.pending.get(inboundId);
    if (!held) return post();
    return new Promise<T | undefined>((resolve, reject) => {
      held.push({ post: () => post().then(resolve, reject), drop: () => resolve(undefined) });
    });
  }
}
