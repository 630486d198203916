import type { WebClient } from '@slack/web-api';

export interface SlackUserGroupsOptions {
  client: WebClient;
  /** How long a group's member list is trusted, in ms. @defaultValue 300000 (5 minutes) */
  ttlMs?: number;
  /** Groups whose members are cached at once. @defaultValue 200 */
  maxGroups?: number;
  /** Members kept per group; a larger group is refused at start of use with a clear log. @defaultValue 50000 */
  maxMembers?: number;
  now?: () => number;
}

/**
 * Slack user group membership for the access allowlists (`usergroups.users.list`, scope `usergroups:read`).
 * Each group's members are cached for `ttlMs`, so a busy channel costs one call per group per period;
 * bounded in groups and members per group.
 */
export class SlackUserGroups {
  private readonly cache = new Map<string, { members: ReadonlySet<string>; atMs: number }>();

  constructor(private readonly options: SlackUserGroupsOptions) {}

  /** The groups among `groupIds` that `userId` belongs to. Rejects when Slack refuses (e.g. a missing scope). */
  async of(userId: string, groupIds: string[]): Promise<string[]> {
    const found: string[] = [];
    for (const id of groupIds) if ((await this.members(id)).has(userId)) found.push(id);
    return found;
  }

  private async members(groupId: string): Promise<ReadonlySet<string>> {
    const now = (this.options.now ?? Date.now)();
    const cached = this.cache.get(groupId);
    if (cached && now - cached.atMs < (this.options.ttlMs ?? 300_000)) return cached.members;
    const result = await this.options.client.usergroups.users.list({ usergroup: groupId });
    const users = Array.isArray(result.users) ? result.users.filter((u): u is string => typeof u === 'string') : [];
    const maxMembers = this.options.maxMembers ?? 50_000;
    if (users.length > maxMembers) {
      throw new Error(`user group ${groupId} has ${users.length} members, more than the ${maxMembers} checked`);
    }
    const members = new Set(users);
    this.cache.delete(groupId);
    this.cache.set(groupId, { members, atMs: now });
    if (this.cache.size > (this.options.maxGroups ?? 200)) this.cache.delete(this.cache.keys().next().value!);
    return members;
  }
}
