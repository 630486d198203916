import type { InboundMessage } from '../../domain/messages.js';
import type { Platform } from '../../domain/thread-key.js';

/**
 * One allowlist: ids per platform; `'*'` allows the whole platform. A platform the list has no entry for is
 * not governed by it (surfaces that are the operator's own, such as a local chat or the CLI); `undefined` (unset) allows everything.
 */
export type Allowlist = Partial<Record<Platform, ReadonlySet<string>>>;

/** Who may use the bot where (each list unset: no restriction); direct mode may be narrower still. */
export interface AccessPolicy {
  places?: Allowlist;
  users?: Allowlist;
  /** Where running one's own fenced code is allowed; unset: wherever `places` allows. */
  directPlaces?: Allowlist;
  /** Who may run their own fenced code; unset: whoever `users` allows. */
  directUsers?: Allowlist;
}

/** Whether any list is set: without one, the access check is skipped entirely. */
export function restricts(policy: AccessPolicy): boolean {
  return Boolean(policy.places || policy.users || policy.directPlaces || policy.directUsers);
}

/** Whether the message's place (workspace, channel or thread id) is on the list. */
export function placeAllowed(list: Allowlist | undefined, message: InboundMessage): boolean {
  const ids = list?.[message.thread.platform];
  if (!ids) return true;
  const { workspace, channel, thread } = message.thread;
  return ids.has('*') || ids.has(workspace) || ids.has(channel) || ids.has(thread);
}

/**
 * The list's ids of a platform that may name groups (all but `*`): the adapter's `groupsOf` knows which of
 * them are groups and asks the platform about those only.
 */
export function groupIds(list: Allowlist | undefined, platform: Platform): string[] {
  return [...(list?.[platform] ?? [])].filter((id) => id !== '*');
}

/**
 * Whether the message's user is on the list by id, by a role the platform sent with the message
 * (`user.roles`), or by one of `groups` the user was found to belong to (the adapter's `groupsOf`).
 */
export function userAllowed(list: Allowlist | undefined, message: InboundMessage, groups: string[] = []): boolean {
  const ids = list?.[message.thread.platform];
  if (!ids) return true;
  if (ids.has('*') || ids.has(message.user.id)) return true;
  return [...(message.user.roles ?? []), ...groups].some((id) => ids.has(id));
}
