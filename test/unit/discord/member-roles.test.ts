import { describe, expect, it } from 'vitest';
import { MAX_MEMBER_ROLES, memberRoleIds } from '../../../adapters/discord/member-roles.js';
import { toInboundMessage } from '../../../adapters/discord/map-message.js';
import { viewFromMessage } from '../../../adapters/discord/views.js';
import { ada, GUILD_ID, messageCreate, offlineClient, TEXT_ID, toMessage } from './recorded.js';

const ROLE = '1180000000000000300';
const roleIds = (n: number) => Array.from({ length: n }, (_, i) => String(1180000000000100000n + BigInt(i)));

describe('Discord member roles for the access allowlists', () => {
  it('a gateway message carries the member roles discord.js read from its payload, without @everyone', () => {
    const client = offlineClient();
    const guild = client.guilds.cache.get(GUILD_ID)!;
    (guild.roles as unknown as { _add(d: unknown): unknown })._add({
      id: ROLE,
      name: 'analysts',
      permissions: '0',
      position: 1,
      color: 0,
      hoist: false,
      managed: false,
      mentionable: false,
      flags: 0,
    });
    const payload = messageCreate({ channelId: TEXT_ID, content: 'hi' });
    (payload.member as { roles: string[] }).roles = [ROLE];
    const view = viewFromMessage(toMessage(client, payload));
    expect(view.roles).toEqual([ROLE]);
    const ref = { platform: 'discord' as const, workspace: GUILD_ID, channel: TEXT_ID, thread: TEXT_ID };
    expect(toInboundMessage(view, ref, '1').user).toMatchObject({ id: ada.id, roles: [ROLE] });
  });

  it('a DM has no member and so no roles', () => {
    const client = offlineClient();
    const view = viewFromMessage(
      toMessage(client, messageCreate({ channelId: '1180000000000000050', content: 'hi', guild: false })),
    );
    expect(view.roles).toBeUndefined();
  });

  it('reads the raw string array of an interaction member; skips what is not a snowflake and duplicates', () => {
    const roles = [ROLE, 'admin', 42, '12', ROLE, GUILD_ID, `${ROLE}0`.repeat(3)];
    expect(memberRoleIds({ roles }, GUILD_ID)).toEqual([ROLE]);
    expect(memberRoleIds({ roles: 'x' }, GUILD_ID)).toBeUndefined();
    expect(memberRoleIds(null, GUILD_ID)).toBeUndefined();
  });

  it(`reads at most ${MAX_MEMBER_ROLES} roles, from an array or discord.js's role manager`, () => {
    const many = roleIds(MAX_MEMBER_ROLES + 50);
    expect(memberRoleIds({ roles: many }, GUILD_ID)).toEqual(many.slice(0, MAX_MEMBER_ROLES));
    const cache = new Map([[GUILD_ID, {}], ...many.map((id) => [id, {}] as const)]);
    const fromManager = memberRoleIds({ roles: { cache } }, GUILD_ID);
    expect(fromManager).toHaveLength(MAX_MEMBER_ROLES);
    expect(fromManager).not.toContain(GUILD_ID);
    expect(fromManager).not.toContain(many[MAX_MEMBER_ROLES]);
  });
});
