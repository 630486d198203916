import type { WebClient } from '@slack/web-api';
import { toSlackError } from './errors.js';

/**
 * Where the messages of one reply go: new messages in the thread, or, when replacing an earlier answer
 * in place, that answer's messages in order (`chat.update`), then new ones after them. What is left of
 * the earlier answer is removed with `chat.delete` by {@link MessagePlacer.finish}.
 */
export class MessagePlacer {
  private readonly slots: string[];
  /** The ts of every message placed, in order. */
  readonly placed: string[] = [];

  constructor(private readonly options: { client: WebClient; channel: string; threadTs: string; previous?: string[] }) {
    this.slots = [...(options.previous ?? [])];
  }

  /** Posts or updates the next message; a refused update leaves its slot for the next attempt. */
  async place(text: string, blocks: unknown[]): Promise<void> {
    const { client, channel, threadTs } = this.options;
    const ts = this.slots.shift();
    if (ts) {
      try {
        await client.chat.update({ channel, ts, text, blocks: blocks as never });
      } catch (err) {
        this.slots.unshift(ts);
        throw toSlackError(err, 'chat.update');
      }
      this.placed.push(ts);
      return;
    }
    try {
      const posted = await client.chat.postMessage({
        channel,
        thread_ts: threadTs,
        text,
        blocks: blocks as never,
        unfurl_links: false,
      });
      if (posted.ts) this.placed.push(posted.ts);
    } catch (err) {
      throw toSlackError(err, 'chat.postMessage');
    }
  }

  /** Removes the earlier answer's messages the new one did not need. */
  async finish(): Promise<void> {
    const { client, channel } = this.options;
    for (const ts of this.slots.splice(0)) {
      try {
        await client.chat.delete({ channel, ts });
      } catch (err) {
        throw toSlackError(err, 'chat.delete');
      }
    }
  }
}
