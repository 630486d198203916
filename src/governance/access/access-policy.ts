import type { InboundMessage } from '../../domain/messages.js';
import type { Platform } from '../../domain/thread-key.js';

/** The platforms whose places and people the allowlists govern; the web chat and CLI are the operator's own. */
export const GOVERNED_PLATFORMS = ['slack', 'discord'] as const;
type Governed = (typeof GOVERNED_PLATFORMS)[number];

/** One allowlist: ids per platform; `'*'` allows the whole platform. `undefined` (unset) allows everything. */
export type Allowlist = Record<Governed, ReadonlySet<string>>;

/** Slack ids say their kind by their first letter: T/E workspace, C/G/D channel, U/W user, S user group. */
const SLACK_PLACE = /^[TECGD][A-Z0-9]{2,}$/;
const SLACK_WHO = /^[UWS][A-Z0-9]{2,}$/;
/** Discord ids are snowflakes, unique across guilds, channels, users and roles. */
const SNOWFLAKE = /^\d{15,22}$/;

/** The cap on entries in one allowlist variable, so a configuration stays reviewable. */
export const MAX_ALLOWLIST_ENTRIES = 1000;

/**
 * Parses `slack:C0123,discord:1234…,discord:*` into an allowlist. `kind` checks each id's shape, so a user
 * id put in a places variable (or a typo) is reported at start-up instead of silently never matching.
 */
export function parseAllowlist(text: string, kind: 'place' | 'who'): Allowlist {
  const entries = text
    .split(/[\s,]+/)
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('expected at least one platform:id entry');
  if (entries.length > MAX_ALLOWLIST_ENTRIES) throw new Error(`at most ${MAX_ALLOWLIST_ENTRIES} entries`);
  const out = { slack: new Set<string>(), discord: new Set<string>() };
  for (const entry of entries) {
    const [platform, id, extra] = entry.split(':');
    if (extra !== undefined || !id) throw new Error(`"${entry}": expected platform:id, such as slack:C0123ABC`);
    if (platform !== 'slack' && platform !== 'discord') throw new Error(`"${entry}": the platform is slack or discord`);
    if (id !== '*') {
      const shape = platform === 'discord' ? SNOWFLAKE : kind === 'place' ? SLACK_PLACE : SLACK_WHO;
      if (!shape.test(id)) throw new Error(`"${entry}": ${describe(platform, kind)}`);
    }
    out[platform].add(id);
  }
  return out;
}

function describe(platform: Governed, kind: 'place' | 'who'): string {
  if (platform === 'discord') return 'a Discord id is a number of 15 to 22 digits (or *)';
  return kind === 'place'
    ? 'a Slack place is a workspace (T…) or channel id (C…, G…, D…), or *'
    : 'a Slack person is a user (U…, W…) or user group id (S…), or *';
}

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

const isGoverned = (platform: Platform): platform is Governed =>
  (GOVERNED_PLATFORMS as readonly string[]).includes(platform);

/** Whether the message's place (workspace, channel or thread id) is on the list. */
export function placeAllowed(list: Allowlist | undefined, message: InboundMessage): boolean {
  const platform = message.thread.platform;
  if (!list || !isGoverned(platform)) return true;
  const ids = list[platform];
  const { workspace, channel, thread } = message.thread;
  return ids.has('*') || ids.has(workspace) || ids.has(channel) || ids.has(thread);
}

/** The list's Slack user group ids (S…): membership of these needs the platform's API. */
export function groupIds(list: Allowlist | undefined, platform: Platform): string[] {
  if (!list || platform !== 'slack') return [];
  return [...list.slack].filter((id) => id.startsWith('S'));
}

/**
 * Whether the message's user is on the list by id, by a role the platform sent with the message
 * (Discord), or by one of `groups` the user was found to belong to (Slack user groups).
 */
export function userAllowed(list: Allowlist | undefined, message: InboundMessage, groups: string[] = []): boolean {
  const platform = message.thread.platform;
  if (!list || !isGoverned(platform)) return true;
  const ids = list[platform];
  if (ids.has('*') || ids.has(message.user.id)) return true;
  return [...(message.user.roles ?? []), ...groups].some((id) => ids.has(id));
}
