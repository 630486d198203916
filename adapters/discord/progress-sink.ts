import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';
import type { ProgressEvent } from '../../src/domain/progress.js';
import type { Logger } from '../../src/logger.js';
import type { ProgressSink } from '../../src/ports/platform-adapter.js';
import { stopButtonId } from './map-interaction.js';
import { foldProgress, initialStatus, renderStatus } from './progress-text.js';
import type { ReplyTarget } from './target.js';

export interface DiscordProgressOptions {
  target: ReplyTarget;
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
 * Live status of one job: the typing indicator, refreshed, and one status message with a Stop button,
 * edited in place at most once per `throttleMs` with the latest state. Failures only log: progress is a
 * courtesy and never breaks the answer.
 */
export class DiscordProgressSink implements ProgressSink {
  private state = initialStatus();
  private readonly statusId: Promise<string | undefined>;
  private readonly throttleMs: number;
  private readonly typingTimer: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastEditMs = Date.now();
  private inflight: Promise<void> = Promise.resolve();
  private finished = false;
  private closed = false;
  private replied = false;

  constructor(private readonly options: DiscordProgressOptions) {
    this.throttleMs = options.throttleMs ?? 1000;
    const typingMs = options.typingIntervalMs ?? 8000;
    if (!options.statusIsOriginal && typingMs > 0) {
      this.sendTyping();
      this.typingTimer = setInterval(() => this.sendTyping(), typingMs);
      this.typingTimer.unref();
    }
    this.statusId = this.createStatus();
  }

  update(event: ProgressEvent): void {
    if (this.finished) return;
    this.state = foldProgress(this.state, event);
    if (this.timer) return;
    const delay = Math.max(0, this.lastEditMs + this.throttleMs - Date.now());
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
    // The first status write may still be in flight: let it land before the reply, or it would
    // overwrite an interaction's answer.
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
    const { target, threadKey, logger } = this.options;
    const message = { content: renderStatus(this.state), files: [], components: stopButtonRow(threadKey) };
    try {
      if (this.options.statusIsOriginal) {
        await target.edit('@original', message);
        return '@original';
      }
      return await target.post(message);
    } catch (err) {
      logger.warn({ err }, 'could not post the Discord status message');
      return undefined;
    }
  }

  private flush(): void {
    this.inflight = this.inflight.then(async () => {
      const id = await this.statusId;
      if (this.finished || !id) return;
      this.lastEditMs = Date.now();
      try {
        await this.options.target.edit(id, { content: renderStatus(this.state) });
      } catch (err) {
        this.options.logger.warn({ err }, 'could not edit the Discord status message');
      }
    });
  }

  private sendTyping(): void {
    this.options.target.typing().catch((err: unknown) => this.options.logger.debug({ err }, 'typing indicator failed'));
  }
}
