import { z } from 'zod';

/**
 * The fields of Slack's `app_context_changed` event Threadlab reads (@slack/types `AppContextChangedEvent`, in
 * node_modules/@slack/types/dist/events/app.d.ts; Slack's reference page of the event): the user, and the entities
 * of what they are viewing, most relevant first. Everything else is ignored; a malformed event reads as no context.
 */
const entity = z.union([
  z.object({ type: z.literal('slack#/types/channel_id'), value: z.string().regex(/^[CGD][A-Z0-9]{2,40}$/) }),
  z.object({
    type: z.literal('slack#/types/message_context'),
    value: z.object({ channel_id: z.string().regex(/^[CGD][A-Z0-9]{2,40}$/) }),
  }),
  z.object({ type: z.string() }),
]);
const contextEvent = z.object({
  type: z.literal('app_context_changed'),
  user: z.string().regex(/^[UW][A-Z0-9]{2,40}$/),
  context: z.object({ entities: z.array(z.unknown()).max(50).optional() }).optional(),
});

/** Entities read from one event; Slack orders them by relevance, so the first channel is the one shown. */
const MAX_ENTITIES = 20;

/** What `app_context_changed` says: who, and the channel they look at (undefined: none, such as a canvas or nothing). */
export interface ViewedContext {
  user: string;
  channel: string | undefined;
}

/** Reads an `app_context_changed` event; undefined when it is not one Threadlab can use. Pure. */
export function mapAppContext(event: unknown): ViewedContext | undefined {
  const parsed = contextEvent.safeParse(event);
  if (!parsed.success) return undefined;
  for (const raw of (parsed.data.context?.entities ?? []).slice(0, MAX_ENTITIES)) {
    const e = entity.safeParse(raw);
    if (!e.success || !('value' in e.data)) continue;
    const value = e.data.value;
    const channel = typeof value === 'string' ? value : value.channel_id;
    // A DM (D…) is no channel to name, and it may be the app's own.
    if (!channel.startsWith('D')) return { user: parsed.data.user, channel };
  }
  return { user: parsed.data.user, channel: undefined };
}

export interface ViewedChannelsOptions {
  /** Users remembered; past this the one not heard from longest is forgotten. @defaultValue 10000 */
  maxUsers?: number;
  /** How long a context counts after Slack sent it, in ms. @defaultValue 1800000 (30 minutes) */
  ttlMs?: number;
}

/** What each user was last seen looking at, per workspace: bounded, and forgotten after `ttlMs`. */
export class ViewedChannels {
  private readonly seen = new Map<string, { channel: string; atMs: number }>();
  private readonly maxUsers: number;
  private readonly ttlMs: number;

  constructor(options: ViewedChannelsOptions = {}) {
    this.maxUsers = options.maxUsers ?? 10_000;
    this.ttlMs = options.ttlMs ?? 30 * 60_000;
  }

  /** Remembers the channel the user looks at now; no channel forgets what they looked at before. */
  remember(workspace: string, context: ViewedContext, nowMs = Date.now()): void {
    const key = `${workspace}:${context.user}`;
    this.seen.delete(key);
    if (!context.channel) return;
    this.seen.set(key, { channel: context.channel, atMs: nowMs });
    if (this.seen.size > this.maxUsers) this.seen.delete(this.seen.keys().next().value!);
  }

  /** The channel the user was looking at, if Slack said so within `ttlMs`. */
  recall(workspace: string, user: string, nowMs = Date.now()): string | undefined {
    const key = `${workspace}:${user}`;
    const entry = this.seen.get(key);
    if (!entry) return undefined;
    if (nowMs - entry.atMs > this.ttlMs) {
      this.seen.delete(key);
      return undefined;
    }
    return entry.channel;
  }

  /** How many users are remembered (for tests of the bound). */
  get size(): number {
    return this.seen.size;
  }
}
