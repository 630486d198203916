import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import { AccessNotices } from '../../../src/governance/access/access-notices.js';
import { MAX_ALLOWLIST_ENTRIES, parseAllowlist } from '../../../src/config/access-lists.js';
import { placeAllowed, userAllowed } from '../../../src/governance/access/access-policy.js';

const message = (o: Partial<InboundMessage['thread']> & { user?: string; roles?: string[] }): InboundMessage => ({
  id: 'm1',
  thread: {
    platform: 'discord',
    workspace: '111111111111111111',
    channel: '222222222222222222',
    thread: '333333333333333333',
    ...o,
  },
  user: { id: o.user ?? '444444444444444444', ...(o.roles ? { roles: o.roles } : {}) },
  text: 'hi',
  attachments: [],
  receivedAtMs: 0,
});

describe('access allowlists', () => {
  it('a Discord place matches its guild, parent channel or thread; a person by id or member role', () => {
    const places = parseAllowlist('discord:111111111111111111', 'place');
    expect(placeAllowed(places, message({}))).toBe(true);
    expect(placeAllowed(places, message({ workspace: '999999999999999999' }))).toBe(false);
    const users = parseAllowlist('discord:555555555555555555', 'who');
    expect(userAllowed(users, message({}))).toBe(false);
    expect(userAllowed(users, message({ roles: ['555555555555555555'] }))).toBe(true);
  });

  it('a list naming only Slack refuses all of Discord; * allows a whole platform; web and CLI are not governed', () => {
    const places = parseAllowlist('slack:C0CHAN01', 'place');
    expect(placeAllowed(places, message({}))).toBe(false);
    expect(placeAllowed(parseAllowlist('slack:C0CHAN01 discord:*', 'place'), message({}))).toBe(true);
    expect(placeAllowed(places, message({ platform: 'web', workspace: 'local', channel: 'web' }))).toBe(true);
  });

  it('rejects ids of the wrong kind, unknown platforms and too many entries, naming the entry', () => {
    expect(() => parseAllowlist('slack:U0USER01', 'place')).toThrow(/slack:U0USER01.*workspace/);
    expect(() => parseAllowlist('slack:C0CHAN01', 'who')).toThrow(/user group/);
    expect(() => parseAllowlist('teams:123', 'place')).toThrow(/slack or discord/);
    expect(() => parseAllowlist('discord:12', 'who')).toThrow(/15 to 22 digits/);
    const many = Array.from({ length: MAX_ALLOWLIST_ENTRIES + 1 }, (_, i) => `slack:C${String(i).padStart(6, '0')}`);
    expect(() => parseAllowlist(many.join(','), 'place')).toThrow(/at most 1000/);
    expect(parseAllowlist(many.slice(1).join(','), 'place').slack.size).toBe(MAX_ALLOWLIST_ENTRIES);
  });

  it('a bad variable is reported by its name at start-up', () => {
    expect(() => loadConfig({ THREADLAB_ACCESS_USERS: 'slack:C0CHAN01' })).toThrow(/THREADLAB_ACCESS_USERS:.*C0CHAN01/);
    expect(
      loadConfig({ THREADLAB_ACCESS_DIRECT_USERS: 'slack:S0GROUP1' }).access.directUsers?.slack.has('S0GROUP1'),
    ).toBe(true);
  });

  it('notices are remembered once per key and bounded: past the limit the oldest is forgotten', () => {
    const notices = new AccessNotices(3);
    expect(['a', 'b', 'c'].map((k) => notices.firstTime(k))).toEqual([true, true, true]);
    expect(notices.firstTime('a')).toBe(false);
    expect(notices.firstTime('d')).toBe(true);
    expect(notices.size).toBe(3);
    expect(notices.firstTime('a')).toBe(true); // forgotten when d came: told again, never grown past 3
    expect(notices.size).toBe(3);
  });
});
