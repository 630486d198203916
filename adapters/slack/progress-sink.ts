import { ErrorCode, type WebClient } from '@slack/web-api';
import type { ProgressEvent } from '../../src/domain/progress-event.js';
import type { Logger } from '../../src/logger.js';
import type { ProgressSink } from '../../src/ports/platform-adapter.js';
import { applyProgress, initialProgress, renderProgress, type ProgressState } from './progress-view.js';
import { RunTasks, type StreamChunk } from './run-tasks.js';
import { TaskStream } from './task-stream.js';

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
  /**
   * Use the assistant surfaces (assistant threads in DMs): `assistant.threads.setStatus` for the phase,
   * and a native stream (`chat.startStream` / `appendStream` / `stopStream`) with one task card per code
   * run. Either refused: the updated status message instead. @defaultValue false
   */
  assistant?: boolean;
  /**
   * With `assistant`: first try Slack's Agent Sessions API (`agents.sessions.setStatus`: `processing` while the job
   * runs, with Slack's own Stop, then `active`), the status of apps on `agent_view`. Refused: the assistant status
   * (`assistant.threads.setStatus`) as before. @defaultValue false
   */
  sessions?: boolean;
  /** Called with Slack's error when it refuses `agents.sessions.setStatus`; the caller may stop trying it. */
  onSessionsUnsupported?: (err: unknown) => void;
  /** The asking user and team, sent as the stream's recipient. */
  recipient?: { userId: string; teamId: string };
  /** Called with Slack's error and the method when it refuses an assistant surface; the caller may stop trying it. */
  onAssistantUnsupported?: (err: unknown, method: string) => void;
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
  private readonly tasks = new RunTasks();
  private readonly stream: TaskStream;
  /** The stream failed after it started (the user stopped it in Slack, say): no more stream writes. */
  private streamBroken = false;
  private readonly minIntervalMs: number;
  private mode: 'assistant' | 'message';
  /** The agent session: still to try, set to `processing` (to be made `active` at the end), or not used. */
  private session: 'try' | 'on' | 'off';
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
  private lastMethod = '';

  constructor(private readonly options: SlackProgressOptions) {
    this.minIntervalMs = options.minIntervalMs ?? 1000;
    this.mode = options.assistant ? 'assistant' : 'message';
    this.session = options.assistant && options.sessions ? 'try' : 'off';
    this.stream = new TaskStream({
      channel: options.channel,
      threadTs: options.threadTs,
      ...(options.recipient
        ? { recipientUserId: options.recipient.userId, recipientTeamId: options.recipient.teamId }
        : {}),
    });
  }

  update(event: ProgressEvent): void {
    if (this.finished) return;
    const task = this.tasks.apply(event);
    if (!applyProgress(this.state, event) && !task) return;
    this.dirty = true;
    this.schedule();
  }

  /** Stops every further status write and waits for the one in flight; called before the answer is posted. */
  async finish(): Promise<void> {
    this.finished = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
    if (this.mode === 'assistant' && !this.streamBroken && !this.stream.ts && this.tasks.pending().length > 0) {
      // A run that ended within the first write's interval: its card still gets its stream, then the stop below.
      // Refused (a workspace without streaming): nothing more is shown for a job that is done, but the refusal is
      // reported like one during the run, so the next job goes straight to the status message.
      const streamed = await this.writeStream(this.options.statusClient ?? this.options.client);
      if (!streamed) {
        this.streamBroken = true;
        this.options.onAssistantUnsupported?.(this.lastError, this.lastMethod);
      }
    }
    if (this.mode === 'assistant' && !this.streamBroken && this.stream.ts) {
      // The timeline is complete before the answer appears under it; the last write must land.
      const note = this.tasks.droppedNote();
      const chunks: StreamChunk[] = [
        ...this.tasks.finalChunks(),
        ...(note ? [{ type: 'markdown_text' as const, text: note }] : []),
      ];
      this.streamBroken = true;
      await this.call('chat.stopStream', () => this.stream.stop(this.options.client, chunks));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.options.onClose?.();
    await this.finish();
    const { client, channel, threadTs } = this.options;
    if (this.session === 'on') {
      // The job is done: the session waits for the user again, and Slack's Stop goes away.
      await this.call('agents.sessions.setStatus', () =>
        client.agents.sessions.setStatus({ channel_id: channel, thread_ts: threadTs, status: 'active' }),
      );
    } else if (this.mode === 'assistant') {
      await this.call('assistant.threads.setStatus', () =>
        client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status: '' }),
      );
    }
    if (this.mode === 'assistant') return;
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
    if (this.mode === 'assistant' && this.session === 'try') {
      const userId = this.options.recipient?.userId;
      const started = await this.call('agents.sessions.setStatus', () =>
        client.agents.sessions.setStatus({
          channel_id: channel,
          thread_ts: threadTs,
          status: 'processing',
          ...(userId ? { initiator_user_id: userId } : {}),
        }),
      );
      if (!started && retryAfterSec(this.lastError) !== undefined) return; // 429: tried again later
      this.session = started ? 'on' : 'off';
      if (!started) this.options.onSessionsUnsupported?.(this.lastError);
    }
    if (this.mode === 'assistant') {
      // In an agent session the stream's task cards say what runs; otherwise the assistant status line does.
      const ok =
        this.session === 'on' ||
        (await this.call('assistant.threads.setStatus', () =>
          client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status: this.state.status }),
        ));
      if (ok ? await this.writeStream(client) : retryAfterSec(this.lastError) !== undefined) return; // 429: retried later
      // Not an assistant thread, or the app lacks the feature: fall back to a message.
      this.mode = 'message';
      this.options.onAssistantUnsupported?.(this.lastError, this.lastMethod);
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
   * Sends the task cards that changed to the stream; false when Slack refused to start it (the caller
   * falls back to a message). A 429 keeps the cards unsent for the next write; a failure after the
   * stream started (the user pressed Stop in Slack) ends stream writes for this job only.
   */
  private async writeStream(client: WebClient): Promise<boolean> {
    const chunks = this.tasks.pending();
    if (chunks.length === 0 || this.streamBroken) return true;
    const started = this.stream.ts !== undefined;
    const ok = await this.call(started ? 'chat.appendStream' : 'chat.startStream', () =>
      this.stream.send(client, chunks),
    );
    if (ok) this.tasks.markSent(chunks);
    if (ok || retryAfterSec(this.lastError) !== undefined) return true;
    if (started) this.streamBroken = true;
    return started;
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
      this.lastMethod = method;
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
