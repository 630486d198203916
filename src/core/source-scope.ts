import type { InboundMessage } from '../domain/messages.js';
import type { SourceScope } from '../ports/data-sources.js';

/**
 * Who asks and where, as the data sources' access lists read it: the channel as the place, the workspace (or guild)
 * and the thread as the other ids it goes by, and the roles the platform sent.
 */
export function sourceScopeOf(message: InboundMessage): SourceScope {
  const { thread, user } = message;
  return {
    platform: thread.platform,
    user: user.id,
    place: thread.channel,
    places: [thread.workspace, thread.thread],
    ...(user.roles?.length ? { roles: user.roles } : {}),
  };
}
