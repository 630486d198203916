import type {
  Display,
  ExecutionResult,
  FilePreview,
  Language,
  SandboxEnvironment,
  SandboxFile,
} from '../domain/execution.js';

export interface RunRequest {
  language: Language;
  code: string;
  /** Wall-clock limit of this run. @defaultValue the sandbox's configured timeout */
  timeoutMs?: number;
  /**
   * A run the bot makes for itself (the export's package versions), not the user's: it does not advance the
   * thread's execution count, and notices for the user's next run (variables reset or restored) wait for that run.
   * An internal bash run runs in a fresh process of the sandbox user with an environment of its own, never in the
   * session's kernel, which the user's code controls; an internal Python run (threadlab eval's probes) runs in the
   * kernel, whose state it reads.
   */
  internal?: boolean;
  /** Aborting interrupts the run like a timeout would (the session survives if the code yields). */
  signal?: AbortSignal;
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  onDisplay?: (display: Display) => void;
}

export interface PreviewOptions {
  /** Budget for all the files together; files past it are skipped with a note. @defaultValue THREADLAB_PREVIEW_TIMEOUT_MS */
  timeoutMs?: number;
  /** Stop: the preview in flight is killed and the remaining files are skipped with a note. */
  signal?: AbortSignal;
}

/**
 * Stateful code execution, one isolated session per key. Failures of the user's code are data in the
 * result; only infrastructure failures throw (ThreadlabError with a code).
 */
export interface Sandbox {
  /** Runs code in the session of `key`, creating the session on first use. */
  run(key: string, request: RunRequest): Promise<ExecutionResult>;
  /**
   * Writes a file into the session's `/mnt/data` (name sanitised; size capped while it streams). A
   * stream is consumed a chunk at a time, never held whole; a failed or oversized one leaves no partial file.
   */
  putFile(key: string, name: string, data: Buffer | AsyncIterable<Uint8Array>): Promise<SandboxFile>;
  listFiles(key: string): Promise<SandboxFile[]>;
  /** Reads a file of the session; `path` is relative to `/mnt/data`. */
  readFile(key: string, path: string): Promise<Buffer>;
  /**
   * Structured previews of data files, computed inside the sandbox within a time budget. A file that could not
   * be previewed (too slow, stopped, unreadable) has `error` saying why; it stays in `/mnt/data` either way.
   */
  previewFiles(key: string, paths: string[], options?: PreviewOptions): Promise<FilePreview[]>;
  /**
   * Gets the session of `key` ready for the code about to come while the caller waits on something else (the
   * model writing it): its container started or taken from the pool, its saved variables restored, and the data
   * stack (numpy, pandas, pyplot) loaded into its kernel. Runs queue behind it. Resolves when done; a failure here
   * is the next run's to report, so callers may ignore it.
   */
  prepare(key: string): Promise<void>;
  /** Forgets variables and files of the session and removes its container. */
  reset(key: string): Promise<void>;
  /**
   * Retires the session's container, its variables saved first and its files kept, so its next run starts in a
   * fresh container restored from them (a scheduled re-run). Nothing happens without a live container. Absent: an
   * implementation without containers to recycle.
   */
  recycle?(key: string): Promise<void>;
  /** Whether the session has a live interpreter (its variables exist). */
  isLive(key: string): boolean;
  environment(): Promise<SandboxEnvironment>;
  close(): Promise<void>;
}
