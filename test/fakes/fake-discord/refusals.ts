import { FakeRateLimits } from './rate-limits.js';
import type { RecordedRequest, RestResult } from './rest.js';

/** A scripted failure: the next `times` requests matching `method` and `path` get this answer. */
export interface ScriptedFailure {
  method?: string;
  path: RegExp;
  times: number;
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A 429 that holds the request's bucket this long, as Discord does (`status` and `body` are then ignored). */
  retryAfterS?: number;
}

/** Each interaction token: when it was issued, whether only a user install authorised it, its follow-ups. */
export type InteractionTokens = Map<string, { atMs: number; userInstallOnly: boolean; followUps: number }>;

/** What the refusals read of the fake: the places the bot cannot reach, its tokens and its upload limit. */
export interface RefusalState {
  readonly applicationId: string;
  readonly hiddenChannelId: string;
  readonly foreignGuildId: string;
  readonly foreignChannelId: string;
  readonly groupDmChannelId: string;
  readonly tokens: InteractionTokens;
  readonly interactionTokenLifetimeMs: number;
  readonly uploadLimitBytes: number;
}

/** Follow-ups Discord takes for an interaction of a user install used where the app is not installed (docs: "Create Followup Message"). */
const USER_INSTALL_FOLLOW_UPS = 5;

const missingAccess: RestResult = { status: 403, body: { message: 'Missing Access', code: 50001 } };

/**
 * What Discord answers before a request reaches its route: Missing Access where the bot cannot see, an
 * interaction token's rules, a bucket still held by a 429, a scripted failure, a file over the upload limit.
 * A routed answer gets the route's rate-limit headers from here too.
 */
export class RestRefusals {
  private readonly failures: ScriptedFailure[] = [];
  private readonly rateLimits = new FakeRateLimits();

  constructor(private readonly state: RefusalState) {}

  /** Scripts failures of matching requests (checked in order, after the refusals Discord itself makes). */
  script(failure: ScriptedFailure): void {
    this.failures.push(failure);
  }

  /** The answer that refuses `recorded` before routing, or undefined to route it. */
  refusal(recorded: RecordedRequest): RestResult | undefined {
    const { state } = this;
    if (recorded.path.startsWith(`/channels/${state.hiddenChannelId}`)) return missingAccess;
    const away = [state.foreignChannelId, state.groupDmChannelId, state.foreignGuildId];
    if (away.some((id) => recorded.path.startsWith(`/channels/${id}`) || recorded.path.startsWith(`/guilds/${id}`)))
      return missingAccess;
    const refused = this.tokenRefusal(recorded);
    if (refused) return refused;
    const held = this.rateLimits.refusal(recorded.method, recorded.path);
    if (held) return held;
    const failure = this.failures.find(
      (f) => f.times > 0 && f.path.test(recorded.path) && (!f.method || f.method === recorded.method),
    );
    if (failure) {
      failure.times -= 1;
      if (failure.retryAfterS !== undefined)
        return this.rateLimits.limit(recorded.method, recorded.path, failure.retryAfterS);
      return { status: failure.status, body: failure.body, ...(failure.headers ? { headers: failure.headers } : {}) };
    }
    const tooLarge = recorded.files.find((f) => f.data.length > state.uploadLimitBytes);
    if (tooLarge) return { status: 413, body: { message: 'Request entity too large', code: 40005 } };
    return undefined;
  }

  /** The routed answer with the headers Discord puts on its route's responses. */
  withRateLimitHeaders(recorded: RecordedRequest, result: RestResult): RestResult {
    const limits = this.rateLimits.headers(recorded.method, recorded.path);
    return { ...result, headers: { ...limits, ...result.headers } };
  }

  /**
   * Discord's rules for an interaction's token: it answers for the fake's `interactionTokenLifetimeMs` (then 401,
   * code 50027 Invalid Webhook Token), and an interaction only a user install authorised takes 5 follow-ups ("Apps
   * are limited to 5 followup messages per interaction if it was initiated from a user-installed app and isn't
   * installed in the server": docs, "Create Followup Message"; the docs name no error code for the sixth, so 400
   * with code 0).
   */
  private tokenRefusal(recorded: RecordedRequest): RestResult | undefined {
    const p = recorded.path.split('/').filter(Boolean);
    const token =
      p[0] === 'webhooks' && p[1] === this.state.applicationId ? p[2] : p[0] === 'interactions' ? p[2] : undefined;
    const issued = token ? this.state.tokens.get(token) : undefined;
    if (!issued) return undefined;
    if (Date.now() - issued.atMs > this.state.interactionTokenLifetimeMs)
      return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    if (p[0] !== 'webhooks' || p.length !== 3 || recorded.method !== 'POST') return undefined;
    if (issued.userInstallOnly && issued.followUps >= USER_INSTALL_FOLLOW_UPS)
      return { status: 400, body: { message: 'Maximum number of follow-up messages reached', code: 0 } };
    issued.followUps += 1;
    return undefined;
  }
}
