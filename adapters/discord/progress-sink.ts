import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';
import { isThreadlabError } from '../../src/domain/errors.js';
import type { ProgressEvent } from '../../src/domain/progress-event.js';
import type { Logger } from '../../src/logger.js';
import type { ProgressSink } from '../../src/ports/platform-adapter.js';
import { stopButtonId } from './map-interaction.js';
import { foldProgress, initialStatus, renderStatus } from './progress-text.js';
import type { ReplyTarget } from './target.js';

export interface DiscordProgressOptions {
  /** Removes or finalises the status at the end; waits out rate limits, since that write must land. */
  target: ReplyTarget;
  /**
   * Posts and edits the live status and sends typing. Its REST client must refuse rate-limited calls
   * rather than wait them out (the bot's `statusRest`), since @discordjs/rest sleeps through a 429's
   * Retry-After without looking at the request's AbortSignal: the sink then retries after Retry-After,
   * and only until the job finishes. @defaultValue target
   */
  statusTarget?: ReplyTarget;
  threadKey: string;
  logger: Logger;
  /** The status is the interaction's deferred reply (`@original`), not a message of its own. */
  statusIsOriginal: boolean;
  /** Minimum time between two edits of the status message, in ms. @defaultValue 1000 */
  throttleMs?: number;
  /** How often the typing indicator is sent again (Discord shows it for 10 s); 0 disables it. @defaultValue 8000 */
  typingIntervalMs?: number;
  /** Called once when the sink closes. */
  onClose?: () => void;
  /**
   * Said before the interaction's token runs out (Discord's 15 minutes) while the job still runs, where the token is
   * the only way to answer: `text` is posted through `target` (a follow-up) at `atMs`, epoch ms.
   */
  expiryNotice?: { atMs: number; target: ReplyTarget; text: string };
}

/** The Stop button row for a thread. */
export function stopButtonRow(threadKey: string): unknown[] {
  const button = new ButtonBuilder()
    .setCustomId(stopButtonId(threadKey))
    .setLabel('Stop')
    .setStyle(ButtonStyle.Danger)
    .setEmoji('🛑');
  return [new ActionRowBuilder<ButtonBuilder>().addComponents(button).toJSON()];
}

/**
 * Milliseconds to wait when Discord refused a call with 429 or the bot's REST held it for a rate limit,
 * or undefined for any other failure.
 */
export function retryAfterMs(err: unknown): number | undefined {
  if (isThreadlabError(err, 'platform_rate_limited')) return err.retryAfterMs ?? 1000;
  const e = err as { name?: unknown; status?: unknown; retryAfter?: unknown } | undefined;
  if (e?.name !== 'RateLimitError' && e?.status !== 429) return undefined;
  return typeof e.retryAfter === 'number' && e.retryAfter > 0 ? e.retryAfter : 1000;
}

/**
 * Live status of one job: the typing indicator, refreshed, and one status message with a Stop button,
 * edited in place at most once per `throttleMs` with the latest state. Failures only log: progress is a
 * courtesy and never breaks the answer. A status write refused with 429 is tried again with the latest
 * state after Retry-After, but never once {@link finish} was called: no status outlives its job, and
 * the answer never waits for a rate limit of the status.
 */
export class DiscordProgressSink implements ProgressSink {
  private state = initialStatus();
  private statusId: Promise<string | undefined>;
  /** Not before this time: Discord's Retry-After of a refused status write. */
  private retryAtMs = 0;
  private readonly status: ReplyTarget;
  /** Drops a status post that waits for its Retry-After (the job finished first). */
  private cancelRetry: (() => void) | undefined;
  private readonly throttleMs: number;
  private readonly typingTimer: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly expiryTimer: NodeJS.Timeout | undefined;
  private lastEditMs = Date.now();
  private inflight: Promise<void> = Promise.resolve();
  private finished = false;
  private closed = false;
  private replied = false;

  constructor(private readonly options: DiscordProgressOptions) {
    this.throttleMs = options.throttleMs ?? 1000;
    this.status = options.statusTarget ?? options.target;
    const typingMs = options.typingIntervalMs ?? 8000;
    if (!options.statusIsOriginal && typingMs > 0) {
      this.sendTyping();
      this.typingTimer = setInterval(() => this.sendTyping(), typingMs);
      this.typingTimer.unref();
    }
    this.statusId = this.createStatus();
    const notice = options.expiryNotice;
    if (notice) {
      this.expiryTimer = setTimeout(() => this.sayExpiry(notice), Math.max(0, notice.atMs - Date.now()));
      this.expiryTimer.unref();
    }
  }

  private sayExpiry(notice: NonNullable<DiscordProgressOptions['expiryNotice']>): void {
    if (this.finished) return;
    notice.target
      .post({ content: notice.text, files: [] })
      .catch((err: unknown) => this.options.logger.warn({ err }, 'could not say the interaction is about to expire'));
  }

  update(event: ProgressEvent): void {
    if (this.finished) return;
    this.state = foldProgress(this.state, event);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.finished) return;
    const delay = Math.max(0, this.lastEditMs + this.throttleMs - Date.now(), this.retryAtMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, delay);
  }

  /** Stops typing and editing and waits for an edit in flight; called before the reply is posted. */
  async finish(options: { replied?: boolean } = {}): Promise<void> {
    if (options.replied) this.replied = true;
    this.finished = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.typingTimer) clearInterval(this.typingTimer);
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.cancelRetry?.();
    // A status write may still be on the wire: let it land before the reply, or it would overwrite an
    // interaction's answer (or post a status message nobody deletes). It never waits for a rate limit.
    await this.statusId;
    await this.inflight;
  }

  /** Removes the status message (or, for an interaction that got no reply, leaves its last state without the button). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.options.onClose?.();
    await this.finish();
    const id = await this.statusId;
    if (!id) return;
    const { target, logger } = this.options;
    try {
      if (!this.options.statusIsOriginal) await target.remove(id);
      else if (!this.replied) await target.edit(id, { content: renderStatus(this.state), components: [] });
    } catch (err) {
      logger.warn({ err }, 'could not remove the Discord status message');
    }
  }

  private async createStatus(): Promise<string | undefined> {
    const { threadKey } = this.options;
    const message = { content: renderStatus(this.state), files: [], components: stopButtonRow(threadKey) };
    try {
      if (this.options.statusIsOriginal) {
        await this.status.edit('@original', message);
        return '@original';
      }
      return await this.status.post(message);
    } catch (err) {
      if (this.refused(err, 'could not post the Discord status message')) this.retryCreate();
      return undefined;
    }
  }

  /** Posts the status after Retry-After, unless the job finished by then. */
  private retryCreate(): void {
    const retried = new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(
        () => {
          this.cancelRetry = undefined;
          resolve(this.finished ? undefined : this.createStatus());
        },
        Math.max(0, this.retryAtMs - Date.now()),
      );
      this.cancelRetry = () => {
        clearTimeout(timer);
        resolve(undefined);
      };
    });
    this.statusId = retried;
  }

  private flush(): void {
    this.inflight = this.inflight.then(async () => {
      const id = await this.statusId;
      if (this.finished || !id) return;
      this.lastEditMs = Date.now();
      try {
        await this.status.edit(id, { content: renderStatus(this.state) });
      } catch (err) {
        if (this.refused(err, 'could not edit the Discord status message')) this.schedule();
      }
    });
  }

  /** Logs a failed status write; true when it was a 429, whose Retry-After then holds the next write. */
  private refused(err: unknown, what: string): boolean {
    const waitMs = retryAfterMs(err);
    if (waitMs !== undefined) this.retryAtMs = Date.now() + waitMs;
    this.options.logger.warn({ err, ...(waitMs !== undefined ? { retryAfterMs: waitMs } : {}) }, what);
    return waitMs !== undefined && !this.finished;
  }

  private sendTyping(): void {
    if (this.finished || Date.now() < this.retryAtMs) return;
    this.status.typing().catch((err: unknown) => this.options.logger.debug({ err }, 'typing indicator failed'));
  }
}
