/** Discord's own maximum of roles in a guild (so of roles one member can have). */
export const MAX_MEMBER_ROLES = 250;

/** A Discord id: a snowflake, 15 to 22 digits (as the access allowlists accept them). */
const SNOWFLAKE = /^\d{15,22}$/;

/**
 * The role ids of a guild member as the platform sent them, for the access allowlists: the raw payload's
 * `member.roles` (a string array, as interactions carry it when the guild is not cached) or discord.js's
 * role manager (`GuildMember.roles`, filled from the gateway payload). The guild's `@everyone` role (its id
 * is the guild's) is left out, so a message and a slash command of the same member give the same list.
 *
 * A payload is a claim: at most `MAX_MEMBER_ROLES` ids are read and anything but a snowflake is skipped.
 * Discord sends neither more nor other, and a role that is not read can only refuse (it never grants), so
 * what is cut here fails closed. Undefined when there is no member (a DM) or no role list.
 */
export function memberRoleIds(member: unknown, guildId: string | null): string[] | undefined {
  if (!member || typeof member !== 'object' || !('roles' in member)) return undefined;
  const roles = (member as { roles: unknown }).roles;
  const ids = Array.isArray(roles) ? roles : managerIds(roles);
  if (!ids) return undefined;
  const out: string[] = [];
  // One more than the cap is read: the @everyone role may be among them.
  for (const id of ids.slice(0, MAX_MEMBER_ROLES + 1)) {
    if (out.length === MAX_MEMBER_ROLES) break;
    if (typeof id === 'string' && SNOWFLAKE.test(id) && id !== guildId && !out.includes(id)) out.push(id);
  }
  return out;
}

/** The ids of discord.js's GuildMemberRoleManager (`roles.cache`, a Map keyed by role id). */
function managerIds(roles: unknown): unknown[] | undefined {
  const cache = roles && typeof roles === 'object' ? (roles as { cache?: unknown }).cache : undefined;
  if (!(cache instanceof Map)) return undefined;
  const ids: unknown[] = [];
  for (const id of cache.keys()) {
    if (ids.length >= MAX_MEMBER_ROLES + 1) break; // the guild id may be among them
    ids.push(id);
  }
  return ids;
}
