import type { WebClient } from '@slack/web-api';
import type { StreamChunk } from './run-tasks.js';

export interface TaskStreamOptions {
  channel: string;
  threadTs: string;
  /** The asking user; Slack requires it (with the team) when streaming outside a DM. */
  recipientUserId?: string;
  recipientTeamId?: string;
}

/**
 * One native Slack streaming message in a thread: `chat.startStream` with the first chunks, then
 * `chat.appendStream`, then `chat.stopStream`. Every call throws Slack's error as the client does;
 * the caller decides what a refusal means. Not `client.chatStream()`: that helper buffers markdown
 * text, while this stream carries task cards that must go out as they change, and its last write must
 * go through the retrying client although the others go through the one that hands 429s back.
 */
export class TaskStream {
  private tsValue: string | undefined;
  private stopped = false;

  constructor(private readonly options: TaskStreamOptions) {}

  /** The streaming message's ts once `chat.startStream` answered. */
  get ts(): string | undefined {
    return this.tsValue;
  }

  /** Starts the stream with `chunks`, or appends them once it is started. */
  async send(client: WebClient, chunks: StreamChunk[]): Promise<void> {
    const { channel, threadTs, recipientUserId, recipientTeamId } = this.options;
    if (this.stopped) return;
    if (this.tsValue) {
      await client.chat.appendStream({ channel, ts: this.tsValue, chunks });
      return;
    }
    const res = await client.chat.startStream({
      channel,
      thread_ts: threadTs,
      task_display_mode: 'timeline',
      chunks,
      ...(recipientUserId ? { recipient_user_id: recipientUserId } : {}),
      ...(recipientTeamId ? { recipient_team_id: recipientTeamId } : {}),
    });
    if (!res.ts) throw new Error('chat.startStream answered without a ts');
    this.tsValue = res.ts;
  }

  /** Ends the stream with its last chunks; nothing when it never started or already stopped. */
  async stop(client: WebClient, chunks: StreamChunk[]): Promise<void> {
    if (!this.tsValue || this.stopped) return;
    this.stopped = true;
    await client.chat.stopStream({
      channel: this.options.channel,
      ts: this.tsValue,
      ...(chunks.length > 0 ? { chunks } : {}),
    });
  }
}
