import { toThreadlabError } from '../../domain/errors.js';
import type { InboundMessage } from '../../domain/messages.js';
import type { Logger } from '../../logger.js';
import type { GovernanceSurface } from '../../ports/governance.js';
import { AccessNotices } from './access-notices.js';
import { GroupMemory } from './group-memory.js';
import { groupIds, placeAllowed, userAllowed, type AccessPolicy } from './access-policy.js';

export interface AccessGateOptions {
  policy: AccessPolicy;
  /** What a refused user is told to do to get access (THREADLAB_ACCESS_HELP). */
  help: string;
  /** Users × places remembered as told (THREADLAB_ACCESS_NOTICE_MEMORY). @defaultValue 10000 */
  maxNotices?: number;
  logger: Logger;
  /** @defaultValue memberships kept 10 s, at most 1,000 people */
  groupMemory?: GroupMemory;
}

/** Why a message was refused; `direct` refusals concern only running one's own code. */
export type AccessRefusal = { scope: 'use' | 'direct'; why: 'place' | 'user'; text: string };

/**
 * Decides, where messages are accepted and before anything is queued or run, whether the user may use the
 * bot in that place (and run their own code there). A refused user is told once per place, privately where
 * the platform allows, with how to get access; later messages there are refused quietly (and logged).
 */
export class AccessGate {
  private readonly notices: AccessNotices;
  /** Group memberships asked once per message: the adapter's check and the core's share the platform's answer. */
  private readonly memberships: GroupMemory;

  constructor(private readonly options: AccessGateOptions) {
    this.notices = new AccessNotices(options.maxNotices);
    this.memberships = options.groupMemory ?? new GroupMemory();
  }

  /**
   * The refusal of `message`, or undefined when it may go on; `direct`: it runs the user's own code. Asks the
   * platform's surface for the user's groups only when needed.
   */
  async check(
    message: InboundMessage,
    direct: boolean,
    surface: Pick<GovernanceSurface, 'groupsOf'> | undefined,
  ): Promise<AccessRefusal | undefined> {
    const { policy, help } = this.options;
    if (!placeAllowed(policy.places, message))
      return { scope: 'use', why: 'place', text: `Threadlab is not enabled in this channel. ${help}` };
    const groups = await this.groupsOf(message, surface);
    if (!userAllowed(policy.users, message, groups))
      return { scope: 'use', why: 'user', text: `You are not on the list of people who may use Threadlab. ${help}` };
    if (!direct) return undefined;
    if (!placeAllowed(policy.directPlaces, message))
      return { scope: 'direct', why: 'place', text: directText('in this channel', help) };
    if (!userAllowed(policy.directUsers, message, groups))
      return { scope: 'direct', why: 'user', text: directText('for you', help) };
    return undefined;
  }

  /**
   * Whether the user is told about a refusal now: once per user, place and scope; a native command (a slash
   * command the user expects an answer to: `message.command` not typed as text, or `always`) every time. Logs the
   * refusal. The adapter says it (privately where its platform allows); nothing is posted here.
   */
  tellsNow(message: InboundMessage, refusal: AccessRefusal, options: { always?: boolean } = {}): boolean {
    const { thread, user } = message;
    const key = [refusal.scope, thread.platform, thread.workspace, thread.channel, user.id].join('\u0000');
    const first = this.notices.firstTime(key);
    const native = Boolean(message.command) && message.commandTyped !== true;
    const answer = first || native || options.always === true;
    const log = this.options.logger.child({ platform: thread.platform, channel: thread.channel, user: user.id });
    log.info({ scope: refusal.scope, why: refusal.why, told: answer }, 'access refused');
    return answer;
  }

  private async groupsOf(
    message: InboundMessage,
    surface: Pick<GovernanceSurface, 'groupsOf'> | undefined,
  ): Promise<string[]> {
    const { users, directUsers } = this.options.policy;
    const wanted = [
      ...new Set([...groupIds(users, message.thread.platform), ...groupIds(directUsers, message.thread.platform)]),
    ];
    if (wanted.length === 0 || !surface?.groupsOf) return [];
    const { platform, workspace } = message.thread;
    const key = [platform, workspace, message.user.id, ...wanted].join('\u0000');
    try {
      return await this.memberships.groups(key, () => surface.groupsOf!(message, wanted));
    } catch (err) {
      // Membership unknown: the user is refused by the lists (fail closed) and the cause is logged.
      this.options.logger.warn({ err: toThreadlabError(err) }, 'could not read user group membership');
      return [];
    }
  }
}

function directText(where: string, help: string): string {
  return `Running your own code directly is not enabled ${where}; ask in words and the model will write and run the code. ${help}`;
}
