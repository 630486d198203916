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
  /** Aborting interrupts the run like a timeout would (the session survives if the code yields). */
  signal?: AbortSignal;
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  onDisplay?: (display: Display) => void;
}

/**
 * Stateful code execution, one isolated session per key. Failures of the user's code are data in the
 * result; only infrastructure failures throw (ThreadlabError with a code).
 */
export interface Sandbox {
  /** Runs code in the session of `key`, creating the session on first use. */
  run(key: string, request: RunRequest): Promise<ExecutionResult>;
  /** Writes a file into the session's `/mnt/data` (name sanitised; size capped). */
  putFile(key: string, name: string, data: Buffer): Promise<SandboxFile>;
  listFiles(key: string): Promise<SandboxFile[]>;
  /** Reads a file of the session; `path` is relative to `/mnt/data`. */
  readFile(key: string, path: string): Promise<Buffer>;
  /** Structured previews of data files, computed inside the sandbox. */
  previewFiles(key: string, paths: string[]): Promise<FilePreview[]>;
  /** Forgets variables and files of the session and removes its container. */
  reset(key: string): Promise<void>;
  /** Whether the session has a live interpreter (its variables exist). */
  isLive(key: string): boolean;
  environment(): Promise<SandboxEnvironment>;
  close(): Promise<void>;
}
