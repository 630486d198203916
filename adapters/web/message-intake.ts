import type { InboundMessage } from '../../src/domain/messages.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import type { EventHub } from './event-hub.js';
import { WebRequestError } from './map-request.js';
import type { WebThreadStore } from './thread-store.js';
import type { WebMessage } from './types.js';

/** Something posted for a message while the core decides on it: run once the message is on the stream, or dropped. */
interface Held {
  post: () => Promise<void>;
  drop: () => void;
}

/**
 * Hands user messages to the core and stores them only once it accepted them: a message a limit
 * refused is answered with 429/503 and never enters the history. Replies the core posts while it is
 * still deciding (a refusal's notice, a command's immediate answer) are held and posted after the
 * user's message when it is accepted, dropped when it is refused (the HTTP answer carries the refusal).
 */
export class MessageIntake {
  /** Messages being submitted: what waits for each, and whether the core is still deciding on it. */
  private readonly pending = new Map<string, { held: Held[]; deciding: boolean }>();

  constructor(private readonly deps: { store: WebThreadStore; hub: EventHub; handler: () => InboundHandler }) {}

  /** Submits a message; throws a WebRequestError when the core refuses it (and stores nothing). */
  async submit(message: WebMessage, inbound: InboundMessage): Promise<void> {
    const entry = { held: [] as Held[], deciding: true };
    const { held } = entry;
    this.pending.set(inbound.id, entry);
    let outcome;
    try {
      outcome = await this.deps.handler().onMessage(inbound);
      entry.deciding = false;
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
  }

  /**
   * Runs `post` now, or once the message is on the stream when it is still being submitted. Resolves with what
   * `post` returned (the answer's place, which the edit ledger keeps), or `undefined` when nothing was posted (the
   * message was refused). While the core is still deciding, the caller may be the core itself, waiting inside
   * `onMessage` (a refusal's notice, a command's answer): it gets `undefined` at once rather than wait for itself.
   */
  afterMessage<T>(inboundId: string, post: () => Promise<T>): Promise<T | undefined> {
    const entry = this.pending.get(inboundId);
    if (!entry) return post();
    return new Promise<T | undefined>((resolve, reject) => {
      if (entry.deciding) {
        entry.held.push({ post: () => post().then(() => undefined), drop: () => undefined });
        resolve(undefined);
      } else {
        entry.held.push({ post: () => post().then(resolve, reject), drop: () => resolve(undefined) });
      }
    });
  }
}
