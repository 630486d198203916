import type { InboundMessage, InboundUser } from '../domain/messages.js';
import type { ThreadRef } from '../domain/thread-key.js';
import type { SourceScope } from '../ports/data-sources.js';

/**
 * Who asks and where, as the data sources' access lists read it: the channel as the place, the workspace (or guild)
 * and the thread as the other ids it goes by, and the roles the platform sent.
 */
export function sourceScopeOf(message: Pick<InboundMessage, 'thread' | 'user'>): SourceScope {
  return scopeIn(message.thread, message.user);
}

/** The scope of `user` in `thread`. */
export function scopeIn(thread: ThreadRef, user: InboundUser): SourceScope {
  return {
    platform: thread.platform,
    user: user.id,
    place: thread.channel,
    places: [thread.workspace, thread.thread],
    ...(user.roles?.length ? { roles: user.roles } : {}),
  };
}
