/**
 * The syntax of THREADLAB_ACCESS_* (`slack:C0123,discord:1234…,discord:*`): which platforms the allowlists
 * govern and the shape of their ids. The web chat and CLI are the operator's own and are never listed.
 */
type Governed = 'slack' | 'discord';

/** Slack ids say their kind by their first letter: T/E workspace, C/G/D channel, U/W user, S user group. */
const SLACK_PLACE = /^[TECGD][A-Z0-9]{2,}$/;
const SLACK_WHO = /^[UWS][A-Z0-9]{2,}$/;
/** Discord ids are snowflakes, unique across guilds, channels, users and roles. */
const SNOWFLAKE = /^\d{15,22}$/;

/** The cap on entries in one allowlist variable, so a configuration stays reviewable. */
export const MAX_ALLOWLIST_ENTRIES = 1000;

/**
 * Parses `slack:C0123,discord:1234…,discord:*` into an allowlist. `kind` checks each id's shape, so a user
 * id put in a places variable (or a typo) is reported at start-up instead of silently never matching. The
 * list governs every platform it can name (an empty set for one not named refuses everyone there).
 */
export function parseAllowlist(text: string, kind: 'place' | 'who'): Record<Governed, ReadonlySet<string>> {
  const entries = text
    .split(/[\s,]+/)
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('expected at least one platform:id entry');
  if (entries.length > MAX_ALLOWLIST_ENTRIES) throw new Error(`at most ${MAX_ALLOWLIST_ENTRIES} entries`);
  const out: Record<Governed, Set<string>> = { slack: new Set<string>(), discord: new Set<string>() };
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
