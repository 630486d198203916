import type { LlmMessage } from '../ports/llm-client.js';
import type { HistoryEntry, ConversationRecord, ConversationStore } from '../ports/conversation-store.js';
import type { TurnRun } from './turn.js';
import { summarizeRun } from './tool-result.js';
import { cutHeadTail, estimateTokens } from './text-cut.js';
import { isInternalFile } from '../domain/file-names.js';

/** Options of {@link ThreadMemory}. */
export interface ThreadMemoryOptions {
  store: ConversationStore;
  /** Rough token budget of a thread's history; oldest entries are dropped beyond it. */
  memoryTokens: number;
  /** How long a thread is remembered after its last message, in ms. @defaultValue 7 days */
  ttlMs?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

/** Longest code kept in a memory record, in characters. */
const CODE_CHARS = 1500;

function entryTokens(entry: HistoryEntry): number {
  const text = entry.role === 'code' ? entry.code + entry.summary : entry.text;
  return estimateTokens(text) + 8;
}

/** Drops entries from the front until the history fits `maxTokens`; the newest entry always stays. */
export function trimHistory(history: HistoryEntry[], maxTokens: number): { history: HistoryEntry[]; dropped: number } {
  let total = history.reduce((sum, e) => sum + entryTokens(e), 0);
  let start = 0;
  while (total > maxTokens && start < history.length - 1) {
    total -= entryTokens(history[start]!);
    start += 1;
  }
  // An answer or code record without the question it belongs to confuses more than it helps.
  while (start < history.length - 1 && history[start]!.role !== 'user') start += 1;
  return { history: history.slice(start), dropped: start };
}

/**
 * A compact record of a run for the thread's memory. `foreign`: the code was another person's (run from their
 * message for someone else); the model later reads that such code ran and how it ended, never its text or output,
 * so nothing in it can pose as an instruction. @defaultValue foreign false
 */
export function codeEntry(run: TurnRun, atMs: number, options: { foreign?: boolean } = {}): HistoryEntry {
  if (options.foreign) {
    const files = run.result.artifacts.filter((a) => !isInternalFile(a.path)).map((a) => a.path);
    return {
      role: 'code',
      language: run.language,
      code: '',
      status: run.result.status,
      summary: files.length > 0 ? `files: ${files.slice(0, 20).join(', ')}` : 'no files written',
      atMs,
      foreign: true,
    };
  }
  return {
    role: 'code',
    language: run.language,
    code: cutHeadTail(run.code, { maxChars: CODE_CHARS }).text,
    status: run.result.status,
    summary: summarizeRun(run.result),
    atMs,
  };
}

/**
 * Turns remembered entries into chat messages. Records of code become one assistant note per group,
 * so the model knows which variables and files earlier work left behind.
 */
export function historyToMessages(history: HistoryEntry[]): LlmMessage[] {
  const messages: LlmMessage[] = [];
  let codeNotes: string[] = [];
  const flush = (): void => {
    if (codeNotes.length === 0) return;
    messages.push({ role: 'assistant', content: `[Record of code that ran in this thread]\n${codeNotes.join('\n')}` });
    codeNotes = [];
  };
  for (const entry of history) {
    if (entry.role === 'code') {
      codeNotes.push(
        entry.foreign
          ? `(${entry.language} code from another person's message, run at a user's request; its text and output are not shown) → ${entry.status}: ${entry.summary}`
          : `\`\`\`${entry.language}\n${entry.code}\n\`\`\`\n→ ${entry.status}: ${entry.summary}`,
      );
      continue;
    }
    flush();
    if (entry.role === 'user') {
      const files = entry.files?.length ? `\n\n(Uploaded with this message: ${entry.files.join(', ')})` : '';
      messages.push({ role: 'user', content: entry.text + files });
    } else {
      messages.push({ role: 'assistant', content: entry.text });
    }
  }
  flush();
  return messages;
}

/** How long a thread's conversation memory outlives its last message, by default. */
export const MEMORY_TTL_MS = 7 * 24 * 60 * 60_000;

/** Conversation memory of threads, kept in a ConversationStore within a token budget. */
export class ThreadMemory {
  private readonly store: ConversationStore;
  private readonly memoryTokens: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: ThreadMemoryOptions) {
    this.store = options.store;
    this.memoryTokens = options.memoryTokens;
    this.ttlMs = options.ttlMs ?? MEMORY_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** The thread's record, trimmed to the current budget, or an empty one. */
  async load(threadKey: string): Promise<ConversationRecord> {
    const record = await this.store.get(threadKey);
    const now = this.now();
    if (!record) return { history: [], createdAtMs: now, updatedAtMs: now, trimmedEntries: 0 };
    const trimmed = trimHistory(record.history, this.memoryTokens);
    return { ...record, history: trimmed.history, trimmedEntries: record.trimmedEntries + trimmed.dropped };
  }

  /** Appends entries, trims the oldest beyond the budget and stores the record. */
  async append(threadKey: string, entries: HistoryEntry[]): Promise<ConversationRecord> {
    const record = await this.load(threadKey);
    const trimmed = trimHistory([...record.history, ...entries], this.memoryTokens);
    const next: ConversationRecord = {
      ...record,
      history: trimmed.history,
      updatedAtMs: this.now(),
      trimmedEntries: record.trimmedEntries + trimmed.dropped,
    };
    await this.store.put(threadKey, next, this.ttlMs);
    return next;
  }
}

/** Forgets a thread's conversation memory (the `reset` command; the sandbox is reset separately). */
export async function resetThreadMemory(store: ConversationStore, threadKey: string): Promise<void> {
  await store.delete(threadKey);
}
