import type { SourceScope } from '../ports/data-sources.js';
import { parseAllowlist } from './access-lists.js';

/** Ids per governed platform, as THREADLAB_ACCESS_* parse them. */
export type SourceAllowlist = ReturnType<typeof parseAllowlist>;

/** Who may use one source and where; a list left out does not restrict (everyone who may use the bot). */
export interface SourceAllow {
  places?: SourceAllowlist;
  users?: SourceAllowlist;
}

/**
 * Whether `scope` may use a source. A platform the lists do not govern (the web chat, the CLI: the operator's own)
 * is allowed, as with THREADLAB_ACCESS_*; on Slack and Discord the place (or any id it goes by) and the user (or
 * one of the roles the message carried) must be listed, or `*` given.
 */
export function sourceAllows(allow: SourceAllow, scope: SourceScope): boolean {
  const listed = (list: SourceAllowlist | undefined, ids: string[]): boolean => {
    if (!list || (scope.platform !== 'slack' && scope.platform !== 'discord')) return true;
    const set = list[scope.platform];
    return set.has('*') || ids.some((id) => set.has(id));
  };
  return (
    listed(allow.places, [scope.place, ...(scope.places ?? [])]) &&
    listed(allow.users, [scope.user, ...(scope.roles ?? [])])
  );
}
