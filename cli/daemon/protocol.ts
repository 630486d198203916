import { z } from 'zod';
import { LANGUAGES, type ExecutionResult, type Language } from '../../src/domain/execution.js';
import type { ProgressEvent } from '../../src/domain/progress-event.js';
import type { OutReport, RefusedWrite } from './write-out.js';

/**
 * Header carrying the fingerprint of the caller's parsed configuration; a daemon started with
 * another configuration answers 409 so the caller can replace it.
 */
export const CONFIG_HEADER = 'x-threadlab-config';

/** Limits of what one request to the daemon may carry. */
export const DAEMON_LIMITS = {
  /** An `/exec` body (the code) or a `/chat` header line (the message). */
  maxJsonBytes: 8 * 1024 * 1024,
  /** Files one `chat` call may attach. */
  maxAttachments: 20,
} as const;

const outFields = {
  /** Absolute directory to write artifacts (and displayed images) into. */
  outDir: z.string().startsWith('/').max(4096).optional(),
  /** Replace existing regular files under `outDir`. */
  overwrite: z.boolean().optional(),
};

/** `threadlab exec` → daemon (a JSON body). */
export const execRequestSchema = z.strictObject({
  /** Session name; without one the run gets a throwaway session, reset afterwards. */
  session: z.string().min(1).max(200).optional(),
  language: z.enum(LANGUAGES as unknown as [Language, ...Language[]]),
  code: z.string(),
  timeoutMs: z.number().int().min(100).optional(),
  ...outFields,
});
export type ExecRequest = z.infer<typeof execRequestSchema>;

/**
 * `threadlab chat` → daemon: this JSON line, then each attachment's bytes in order. The client
 * reads the files with its own rights and sends their contents; the daemon never opens a caller's path.
 */
export const chatHeaderSchema = z.strictObject({
  thread: z.string().min(1).max(200),
  text: z.string(),
  attachments: z
    .array(z.strictObject({ name: z.string().min(1).max(255), bytes: z.number().int().min(0) }))
    .max(DAEMON_LIMITS.maxAttachments),
  ...outFields,
});
export type ChatHeader = z.infer<typeof chatHeaderSchema>;

/** What the daemon streams back, one JSON document per line. */
export type DaemonFrame =
  | { type: 'stdout' | 'stderr'; text: string }
  | { type: 'progress'; event: ProgressEvent }
  | { type: 'exec_result'; result: ExecutionResult; out?: OutReport }
  | { type: 'chat_reply'; reply: ChatReplySummary }
  | { type: 'failure'; code: string; message: string };

/** GET /health. */
export interface DaemonHealth {
  pid: number;
  /** Fingerprint of the configuration it runs with (a hash; never the values). */
  config: string;
  /** Asked to exit: takes no new calls and exits once its running calls end. */
  draining: boolean;
}

export interface ChatReplySummary {
  kind: 'answer' | 'notice' | 'error';
  text: string;
  runs: { language: Language; code: string; status: string; durationMs: number }[];
  images: string[];
  files: string[];
  /** Files the sandbox produced that were not written under `--out`, and why. */
  refused: RefusedWrite[];
  omitted: { name: string; bytes: number; reason: string }[];
  footer?: { durationMs: number; runs: number; tokens?: number; model?: string };
  /**
   * The answer's figures checked against the runs' output: counts, the not-found figures (at most 20) and the
   * line printed under the answer. Only when the answer states a figure.
   */
  figures?: { checked: number; notFound: number; notFoundTexts: string[]; line: string };
}
