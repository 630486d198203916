import type { Redis } from 'ioredis';
import type { Logger } from '../../src/logger.js';
import type { ApprovalBoard, BoardDecision, OpenApproval } from '../../src/ports/approval-board.js';
import { closeRedis, createRedis } from './connection.js';

export interface RedisApprovalBoardOptions {
  redisUrl: string;
  logger: Logger;
  /** Prefix of the keys and of the channel decisions are announced on. @defaultValue 'threadlab:approval' */
  keyPrefix?: string;
}

/** A decided request keeps its key (until it is closed or expires) so a late press finds it taken. */
const DECIDED = 'decided:';

/** First decision wins: the key must still hold an undecided request; the decision is announced atomically. */
const DECIDE_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if (not v) or string.sub(v, 1, ${DECIDED.length}) == '${DECIDED}' then return 0 end
redis.call('SET', KEYS[1], '${DECIDED}' .. ARGV[1], 'KEEPTTL')
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`;

/** Removes the request and returns what it held, so a decision that won just before is not lost. */
const CLOSE_SCRIPT = `
local v = redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
return v`;

/** Longest announcement accepted from the channel: ours are well under it. */
const MAX_ANNOUNCEMENT_CHARS = 2048;

/**
 * Approval requests in Redis, so a press that reaches any process (the gateway in split roles, another
 * `--role all` process behind the same Slack app) decides the request a worker is waiting on. Each
 * request is one key with a time to live; a decision is set atomically (the first press wins) and
 * announced on one channel that every process holding requests listens to. A worker that missed the
 * announcement (Redis reconnecting) still finds the decision in the key when its wait ends.
 */
export class RedisApprovalBoard implements ApprovalBoard {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private readonly channel: string;
  private readonly waiting = new Map<string, (decision: BoardDecision) => void>();
  private subscribed: Promise<unknown> | undefined;

  constructor(private readonly options: RedisApprovalBoardOptions) {
    this.prefix = options.keyPrefix ?? 'threadlab:approval';
    this.channel = `${this.prefix}:decided`;
    this.redis = createRedis(options.redisUrl, { logger: options.logger, purpose: 'approval' });
    this.subscriber = createRedis(options.redisUrl, { logger: options.logger, purpose: 'approval-events' });
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.onAnnouncement(text);
    });
  }

  async open(id: string, entry: OpenApproval, ttlMs: number, onDecided: (d: BoardDecision) => void): Promise<void> {
    // Listen before the request can be decided, so the announcement cannot pass unheard.
    // A failed subscription is forgotten, so the next request tries again once Redis is back.
    this.subscribed ??= this.subscriber.subscribe(this.channel).catch((err: unknown) => {
      this.subscribed = undefined;
      throw err;
    });
    await this.subscribed;
    this.waiting.set(id, onDecided);
    try {
      await this.redis.set(this.key(id), JSON.stringify(entry), 'PX', Math.max(1, Math.ceil(ttlMs)));
    } catch (err) {
      this.waiting.delete(id);
      throw err;
    }
  }

  async find(id: string): Promise<OpenApproval | undefined> {
    const text = await this.redis.get(this.key(id));
    if (!text || text.startsWith(DECIDED)) return undefined;
    return parseOpen(text);
  }

  async decide(id: string, decision: BoardDecision): Promise<boolean> {
    const announcement = JSON.stringify({ id, ...decision });
    const won = await this.redis.eval(
      DECIDE_SCRIPT,
      1,
      this.key(id),
      JSON.stringify(decision),
      this.channel,
      announcement,
    );
    return Number(won) === 1;
  }

  async close(id: string): Promise<BoardDecision | undefined> {
    this.waiting.delete(id);
    const text = (await this.redis.eval(CLOSE_SCRIPT, 1, this.key(id))) as string | null;
    return text?.startsWith(DECIDED) ? decisionOf(safeJson(text.slice(DECIDED.length))) : undefined;
  }

  async shutdown(): Promise<void> {
    this.waiting.clear();
    await Promise.all([closeRedis(this.subscriber), closeRedis(this.redis)]);
  }

  /** An announcement is a claim read off a shared channel: checked before it decides anything. */
  private onAnnouncement(text: string): void {
    if (text.length > MAX_ANNOUNCEMENT_CHARS) return;
    const parsed = safeJson(text) as { id?: unknown } | undefined;
    if (typeof parsed?.id !== 'string') return;
    const notify = this.waiting.get(parsed.id);
    const decision = decisionOf(parsed);
    if (!notify || !decision) return;
    this.waiting.delete(parsed.id);
    try {
      notify(decision);
    } catch (err) {
      this.options.logger.warn({ err }, 'an approval decision could not be delivered to its waiting turn');
    }
  }

  private key(id: string): string {
    return `${this.prefix}:${id}`;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseOpen(text: string): OpenApproval | undefined {
  const v = safeJson(text) as Partial<OpenApproval> | undefined;
  if (!v || typeof v.askerId !== 'string' || !['slack', 'discord', 'web', 'cli'].includes(v.platform as string))
    return undefined;
  return { platform: v.platform as OpenApproval['platform'], askerId: v.askerId };
}

/** A decision out of a parsed value (a stored one or an announcement), checked field by field. */
function decisionOf(value: unknown): BoardDecision | undefined {
  const v = value as Partial<BoardDecision> | undefined;
  if (!v || (v.kind !== 'run' && v.kind !== 'skip') || typeof v.by !== 'string') return undefined;
  return { kind: v.kind, by: v.by };
}
