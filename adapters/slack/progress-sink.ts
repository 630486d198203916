import { ErrorCode, type WebClient } from '@slack/web-api';
import type { ProgressEvent } from '../../src/domain/progress.js';
import type { Logger } from '../../src/logger.js';
import type { ProgressSink } from '../../src/ports/platform-adapter.js';
import { applyProgress, initialProgress, renderProgress, type ProgressState } from './progress-view.js';

export interface SlackProgressOptions {
  /** Removes or finalises the status at the end; waits out rate limits, since that write must land. */
  client: WebClient;
  /**
   * Writes the live status. It must reject rate-limited calls (`rejectRateLimitedCalls`) rather than
   * wait them out itself: the sink then retries after `Retry-After`, and only until the job finishes.
   * @defaultValue client
   */
  statusClient?: WebClient;
  channel: string;
  threadTs: string;
  threadKey: string;
  logger: Logger;
  /** Least time between two writes to Slack (chat.update allows about one a second). @defaultValue 1000 */
  minIntervalMs?: number;
  /** Try `assistant.threads.setStatus` first (assistant threads in DMs); falls back to a message. @defaultValue false */
  assistant?: boolean;
  /** Called with Slack's error when it refuses the assistant status; the caller may stop trying it. */
  onAssistantUnsupported?: (err: unknown) => void;
  /** Called once when the sink closes. */
  onClose?: () => void;
}

/** Seconds to wait when Slack refused a call with 429, or undefined for any other failure. */
function retryAfterSec(err: unknown): number | undefined {
  const e = err as { code?: unknown; retryAfter?: unknown } | undefined;
  if (e?.code !== ErrorCode.RateLimitedError) return undefined;
  return typeof e.retryAfter === 'number' && e.retryAfter > 0 ? e.retryAfter : 1;
}

/**
 * The live status of one job in a thread: the assistant-thread status where Slack supports it, otherwise
 * one message with a Stop button, updated in place at most once per `minIntervalMs`. Never throws:
 * a status that cannot be shown must not fail the job. A write refused with 429 is retried with the
 * latest state after `Retry-After`, but never once {@link finish} was called: no status outlives its job.
 */
export class SlackProgressSink implements ProgressSink {
  private readonly state: ProgressState = initialProgress();
  private readonly minIntervalMs: number;
  private mode: 'assistant' | 'message';
  private messageTs: string | undefined;
  private dirty = false;
  private finished = false;
  private closed = false;
  private lastWriteMs = 0;
  /** Not before this time: Slack's Retry-After of a refused write. */
  private retryAtMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private lastError: unknown;

  constructor(private readonly options: SlackProgressOptions) {
    this.minIntervalMs = options.minIntervalMs ?? 1000;
    this.mode = options.assistant ? 'assistant' : 'message';
  }

  update(event: ProgressEvent): void {
    if (this.finished || !applyProgress(this.state, event)) return;
    this.dirty = true;
    this.schedule();
  }

  /** Stops every further status write and waits for the one in flight; called before the answer is posted. */
  async finish(): Promise<void> {
    this.finished = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.options.onClose?.();
    await this.finish();
    const { client, channel, threadTs } = this.options;
    if (this.mode === 'assistant') {
      await this.call('assistant.threads.setStatus', () =>
        client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status: '' }),
      );
      return;
    }
    if (!this.messageTs) return;
    const ts = this.messageTs;
    const deleted = await this.call('chat.delete', () => client.chat.delete({ channel, ts }));
    if (!deleted) {
      const { text, blocks } = renderProgress(this.state, { threadKey: this.options.threadKey, stoppable: false });
      await this.call('chat.update', () => client.chat.update({ channel, ts, text, blocks }));
    }
  }

  private schedule(): void {
    if (this.timer || this.inFlight || this.finished) return;
    const waitMs = Math.max(0, this.lastWriteMs + this.minIntervalMs - Date.now(), this.retryAtMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.inFlight = this.write().finally(() => {
        this.inFlight = undefined;
        this.lastWriteMs = Date.now();
        if (this.dirty) this.schedule();
      });
    }, waitMs);
  }

  private async write(): Promise<void> {
    if (!this.dirty || this.finished) return;
    this.dirty = false;
    const { channel, threadTs, threadKey } = this.options;
    const client = this.options.statusClient ?? this.options.client;
    if (this.mode === 'assistant') {
      const ok = await this.call('assistant.threads.setStatus', () =>
        client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status: this.state.status }),
      );
      if (ok || retryAfterSec(this.lastError) !== undefined) return; // written, or refused for now (429): retried later
      this.mode = 'message'; // not an assistant thread, or the app lacks the feature: fall back to a message
      this.options.onAssistantUnsupported?.(this.lastError);
    }
    const { text, blocks } = renderProgress(this.state, { threadKey, stoppable: true });
    if (this.messageTs) {
      const ts = this.messageTs;
      await this.call('chat.update', () => client.chat.update({ channel, ts, text, blocks }));
      return;
    }
    await this.call('chat.postMessage', async () => {
      const res = await client.chat.postMessage({ channel, thread_ts: threadTs, text, blocks });
      this.messageTs = res.ts;
      return res;
    });
  }

  /**
   * Runs one Web API call; a failure is logged and reported as false. A 429 marks the state unwritten
   * and holds the next write until Slack's Retry-After (the schedule drops it if the job ends first).
   */
  private async call(method: string, fn: () => Promise<unknown>): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (err) {
      this.lastError = err;
      const waitSec = retryAfterSec(err);
      if (waitSec !== undefined) {
        this.retryAtMs = Date.now() + waitSec * 1000;
        this.dirty = true;
      }
      this.options.logger.warn(
        { err, method, thread: this.options.threadKey, ...(waitSec !== undefined ? { retryAfterSec: waitSec } : {}) },
        'slack progress update failed',
      );
      return false;
    }
  }
}
