import type { SandboxFile } from '../domain/execution.js';
import { toThreadlabError } from '../domain/errors.js';
import type { InboundAttachment } from '../domain/messages.js';
import type { PlatformAdapter } from '../ports/platform-adapter.js';
import type { Sandbox } from '../ports/sandbox.js';
import { fetchIntoSandbox } from './attachments.js';
import type { ConversationRecord, ConversationStore } from '../ports/conversation-store.js';

/** Most uploads remembered per thread; the oldest are forgotten first. */
const MAX_UPLOADS = 200;

/** Remembers where a message's attachments landed, in the thread's conversation record. */
export async function rememberUploads(options: {
  store: ConversationStore;
  threadKey: string;
  stored: { attachment: InboundAttachment; file: SandboxFile }[];
  ttlMs: number;
}): Promise<void> {
  // Inline uploads are carried by the message itself and cannot be fetched again.
  const fetchable = options.stored.filter((s) => s.attachment.inlineBase64 === undefined);
  if (fetchable.length === 0) return;
  const now = Date.now();
  const record: ConversationRecord = (await options.store.get(options.threadKey)) ?? {
    history: [],
    createdAtMs: now,
    updatedAtMs: now,
    trimmedEntries: 0,
  };
  const added = fetchable.map(({ attachment, file }) => ({ path: file.path, attachment }));
  const kept = (record.uploads ?? []).filter((u) => !added.some((a) => a.path === u.path));
  await options.store.put(
    options.threadKey,
    { ...record, uploads: [...kept, ...added].slice(-MAX_UPLOADS), updatedAtMs: now },
    options.ttlMs,
  );
}

/**
 * Fetches the thread's earlier uploads again from the platform when this worker holds none of the
 * thread's files (it took the thread over from one that died, without shared storage). A thread that
 * has files is left alone, so a file the user's code deleted is not brought back.
 */
export async function restoreUploads(options: {
  store: ConversationStore;
  threadKey: string;
  adapter: PlatformAdapter;
  sandbox: Sandbox;
  maxBytes: number;
  signal?: AbortSignal;
}): Promise<{ restored: string[]; problems: string[] }> {
  const { store, threadKey, adapter, sandbox, maxBytes, signal } = options;
  const uploads = (await store.get(threadKey))?.uploads ?? [];
  if (uploads.length === 0) return { restored: [], problems: [] };
  if ((await sandbox.listFiles(threadKey)).length > 0) return { restored: [], problems: [] };
  const restored: string[] = [];
  const problems: string[] = [];
  for (const { path, attachment } of uploads) {
    try {
      const file = await fetchIntoSandbox({
        attachment,
        path,
        threadKey,
        adapter,
        sandbox,
        maxBytes,
        ...(signal ? { signal } : {}),
      });
      restored.push(file.path);
    } catch (err) {
      const e = toThreadlabError(err);
      if (e.code === 'cancelled') throw e;
      problems.push(`\`${path}\` could not be fetched again: ${e.message}`);
    }
  }
  return { restored, problems };
}
