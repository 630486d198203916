import type { ExecutionResult, Language } from '../../domain/execution.js';
import type { ProgressEvent } from '../../domain/progress.js';

/** `threadlab exec` → daemon. */
export interface ExecRequest {
  /** Session name; without one the run gets a throwaway session, reset afterwards. */
  session?: string;
  language: Language;
  code: string;
  timeoutMs?: number;
  /** Absolute directory to write artifacts (and displayed images) into. */
  outDir?: string;
}

/** `threadlab chat` → daemon. */
export interface ChatRequest {
  thread: string;
  text: string;
  /** Absolute paths of local files to attach. */
  attachments: string[];
  outDir?: string;
}

/** What the daemon streams back, one JSON document per line. */
export type DaemonFrame =
  | { type: 'stdout' | 'stderr'; text: string }
  | { type: 'progress'; event: ProgressEvent }
  | { type: 'exec_result'; result: ExecutionResult; written: string[] }
  | { type: 'chat_reply'; reply: ChatReplySummary }
  | { type: 'failure'; code: string; message: string };

export interface ChatReplySummary {
  kind: 'answer' | 'notice' | 'error';
  text: string;
  runs: { language: Language; code: string; status: string; durationMs: number }[];
  images: string[];
  files: string[];
  omitted: { name: string; bytes: number; reason: string }[];
  footer?: { durationMs: number; runs: number; tokens?: number; model?: string };
}
