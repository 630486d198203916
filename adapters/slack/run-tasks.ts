import type { ChatAppendStreamArguments } from '@slack/web-api';
import type { ProgressEvent } from '../../src/domain/progress-event.js';
import { formatDuration } from '../../src/domain/text/format.js';
import { queryStepLine } from '../../src/domain/text/query-step.js';

/** A chunk of `chat.startStream` / `appendStream` / `stopStream`, as @slack/web-api types it (from @slack/types). */
export type StreamChunk = NonNullable<ChatAppendStreamArguments['chunks']>[number];
/** `{type: 'task_update', id, title, status: 'pending'|'in_progress'|'complete'|'error', details?, output?}`. */
export type TaskUpdateChunk = Extract<StreamChunk, { type: 'task_update' }>;

/** Slack draws at most this many characters of a task's details or output; more is cut with a note. */
const MAX_TASK_TEXT_CHARS = 500;
/**
 * A long answer may run code many times; past this many tasks the stream stops adding cards (the
 * runs still happen, and the answer says what ran) so one message cannot grow without bound.
 */
export const MAX_STREAM_TASKS = 50;

interface RunTask {
  chunk: TaskUpdateChunk;
  /** Whether this state was already sent to Slack. */
  sent: boolean;
}

/**
 * The task cards of a native Slack stream: one `task_update` per code run (id `run-N`), in progress
 * while it runs and complete or failed when it ends. Pure bookkeeping: it says which cards changed
 * since the last write, so every write sends only those, and a refused write is sent again.
 */
export class RunTasks {
  private readonly tasks: RunTask[] = [];
  private dropped = 0;

  /** Applies one progress event; returns true when a card changed. */
  apply(event: ProgressEvent): boolean {
    if (event.type === 'code' || event.type === 'query') {
      if (this.tasks.length >= MAX_STREAM_TASKS) {
        this.dropped += 1;
        return false;
      }
      const n = this.tasks.length + 1;
      const query = event.type === 'query';
      this.tasks.push({
        chunk: {
          type: 'task_update',
          id: `run-${n}`,
          title: query ? `Query ${n}: ${event.source}` : `Run ${n}: ${event.language}`,
          status: 'in_progress',
          details: clip(query ? event.sql : event.code),
        },
        sent: false,
      });
      return true;
    }
    const current = this.tasks.at(-1);
    if (!current || current.chunk.status !== 'in_progress') return false;
    if (event.type === 'output') {
      current.chunk.output = clip(`${current.chunk.output ?? ''}${event.text}`, { keep: 'tail' });
      current.sent = false;
      return true;
    }
    if (event.type === 'query_finished') {
      current.chunk.status = event.outcome.ok ? 'complete' : 'error';
      current.chunk.output = clip(queryStepLine(event.source, event.outcome));
      current.sent = false;
      return true;
    }
    if (event.type === 'run_finished') {
      current.chunk.status = event.status === 'ok' ? 'complete' : 'error';
      current.chunk.title = `${current.chunk.title} · ${event.status} in ${formatDuration(event.durationMs)}`;
      current.sent = false;
      return true;
    }
    return false;
  }

  /** How many code runs there were, cards or not. */
  get runs(): number {
    return this.tasks.length + this.dropped;
  }

  /** The cards not yet sent in their current state, in run order. */
  pending(): TaskUpdateChunk[] {
    return this.tasks.filter((t) => !t.sent).map((t) => ({ ...t.chunk }));
  }

  /** Marks the given cards as written (by id), unless they changed again since. */
  markSent(chunks: TaskUpdateChunk[]): void {
    for (const c of chunks) {
      const task = this.tasks.find((t) => t.chunk.id === c.id);
      if (task && task.chunk.status === c.status && task.chunk.output === c.output && task.chunk.title === c.title)
        task.sent = true;
    }
  }

  /**
   * The cards for the stream's last write: every run still shown in progress ends as stopped (the job
   * ended without its run_finished: cancelled or failed), so no card spins forever.
   */
  finalChunks(): TaskUpdateChunk[] {
    for (const t of this.tasks) {
      if (t.chunk.status === 'in_progress') {
        t.chunk.status = 'error';
        t.chunk.title = `${t.chunk.title} · stopped`;
        t.sent = false;
      }
    }
    return this.pending();
  }

  /** One line said at the end of the stream when runs went without a card. */
  droppedNote(): string | undefined {
    return this.dropped > 0 ? `…and ${this.dropped} more code runs not shown here.` : undefined;
  }
}

function clip(text: string, options: { keep?: 'head' | 'tail' } = {}): string {
  if (text.length <= MAX_TASK_TEXT_CHARS) return text;
  const note = `…${text.length - MAX_TASK_TEXT_CHARS + 1} more characters`;
  const room = MAX_TASK_TEXT_CHARS - note.length - 1;
  return options.keep === 'tail' ? `${note}\n${text.slice(-room)}` : `${text.slice(0, room)}\n${note}`;
}
