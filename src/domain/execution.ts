/**
 * Languages the sandbox runs. Python, R and JavaScript each keep their state between runs in a session of their
 * own; bash runs in the same `/mnt/data`. R and JavaScript exist only where the image has them.
 */
export type Language = 'python' | 'bash' | 'r' | 'javascript';
export const LANGUAGES: readonly Language[] = ['python', 'bash', 'r', 'javascript'];
/** Languages every image has; the others are listed by the image (SandboxEnvironment.languages). */
export const BASE_LANGUAGES: readonly Language[] = ['python', 'bash'];

const LANGUAGE_LABELS: Readonly<Record<string, Language>> = {
  '': 'python',
  python: 'python',
  py: 'python',
  python3: 'python',
  bash: 'bash',
  sh: 'bash',
  shell: 'bash',
  r: 'r',
  js: 'javascript',
  javascript: 'javascript',
  node: 'javascript',
};

/** The language a code fence's label names (```py, ```sh, ```r, ```js, none = python), or undefined for others. */
export function languageFromLabel(label: string): Language | undefined {
  return Object.hasOwn(LANGUAGE_LABELS, label.toLowerCase()) ? LANGUAGE_LABELS[label.toLowerCase()] : undefined;
}

const FENCE_LABELS: Readonly<Record<Language, string>> = { python: 'py', bash: 'bash', r: 'r', javascript: 'js' };

/** The label a code fence of `language` carries in a reply (```py, ```bash, ```r, ```js). */
export function fenceLabel(language: Language): string {
  return FENCE_LABELS[language];
}

/**
 * How a run ended. `error` is an exception in the user's code (see {@link ExecutionError});
 * `timeout` means the run was interrupted at its deadline; `killed` means the interpreter process died or
 * had to be killed (memory, crash, an interrupt that was ignored) and its state is gone (files are kept).
 */
export type ExecutionStatus = 'ok' | 'error' | 'timeout' | 'killed';

/** An exception raised by the user's code: data for the model to read, never a thrown error. */
export interface ExecutionError {
  name: string;
  value: string;
  traceback: string;
}

/**
 * A rich value shown by the code: the last expression of a cell, `display(x)`, or a matplotlib figure.
 * `data` maps MIME types to content; binary formats (image/png) are base64.
 */
export interface Display {
  data: Record<string, string>;
  /** What the runner knows of a chart, used for alt text: title and axis labels. */
  meta?: { title?: string; xlabel?: string; ylabel?: string; width?: number; height?: number };
}

/** A file under `/mnt/data` that the run created or changed. Its bytes are read with `Sandbox.readFile`. */
export interface Artifact {
  /** Path relative to `/mnt/data`, with `/` separators. */
  path: string;
  bytes: number;
  mime: string;
  change: 'created' | 'modified';
}

/** Why a run was killed, when it was. */
export type KillReason = 'timeout' | 'memory' | 'crash' | 'cancelled';

/** The result of one run: the single shape used by the CLI, the interpreter loop and every adapter. */
export interface ExecutionResult {
  status: ExecutionStatus;
  stdout: string;
  stderr: string;
  displays: Display[];
  artifacts: Artifact[];
  error?: ExecutionError;
  durationMs: number;
  /** Runs executed in this interpreter so far, this one included (resets with the interpreter). */
  executionCount: number;
  /** Bytes elided from the middle of stdout/stderr; the full text is in the artifact `.threadlab/output-N.txt`. */
  truncated?: { stdoutBytes: number; stderrBytes: number; fullOutputPath?: string };
  /** Set when the interpreter's variables were lost before or during this run (files are kept). */
  stateReset?: { reason: string };
  /**
   * The thread's container was replaced (recycled, the bot restarted, another worker took the thread over) and
   * the variables saved after an earlier run were loaded into the new one before this run.
   */
  stateRestored?: StateRestore;
  /** The variables could not be saved after the previous run (too large, an error): a recycle would lose them. */
  stateNotSaved?: { reason: string };
  killReason?: KillReason;
  /**
   * Processes the run started and left running (background, detached, double-forked or `setsid` ones) that
   * were stopped when it ended: nothing a run starts outlives it.
   */
  stoppedProcesses?: number;
  /** For status `timeout`: whether the deadline or the user's stop interrupted the run. */
  interruptedBy?: 'timeout' | 'cancelled';
  /**
   * Files that changed but were not brought back (too large, a sparse file, the total per run reached,
   * a hard link, an unsafe type), with why; `bytes` is the size the sandbox reported. A long list ends
   * with one entry counting the rest.
   */
  skippedArtifacts?: { path: string; reason: string; bytes?: number }[];
}

/** What the code can reach through the egress gateway, for the model. */
export interface EgressDescription {
  /** The allowed destinations as configured (patterns). */
  allowed: string[];
  /** Package indexes an install can use (every host they need is allowed), e.g. `PyPI (pip install)`. */
  packageIndexes: string[];
  /** Destinations the gateway adds credentials for (host or host:port; never the values). */
  credentialed?: string[];
}

/** What came back of a thread's saved variables in a new container. */
export interface StateRestore {
  /** Why the container was new (idle, evicted, the bot restarted…). */
  reason: string;
  /** When the variables were saved (ISO 8601). */
  savedAt: string;
  /** Variables (modules included) now defined again. */
  variables: number;
  /** `name (type)` of each variable that could not be saved or loaded. */
  notRestored: string[];
}

/** A file in a session's `/mnt/data`. */
export interface SandboxFile {
  path: string;
  bytes: number;
  mime: string;
  modifiedMs: number;
}

/** A structured look at a data file, computed inside the sandbox (never by parsing in the bot). */
export interface FilePreview {
  path: string;
  bytes: number;
  kind: 'table' | 'json' | 'text' | 'image' | 'binary';
  /** Per sheet for workbooks, one entry for CSV. */
  tables?: {
    sheet?: string;
    rows: number;
    /** Every column of the table; `columns` names only the first ones. */
    columnCount?: number;
    columns: { name: string; dtype: string }[];
    head: string;
  }[];
  /** First lines for text and JSON, or a summary of a JSON document's shape. */
  text?: string;
  error?: string;
}

/** A language the image offers besides Python and bash: its version and main packages (name to version). */
export interface InstalledLanguage {
  version: string;
  packages: Record<string, string>;
}

/** What the sandbox image offers, read from the image itself. */
export interface SandboxEnvironment {
  imageVersion: string;
  python: string;
  packages: Record<string, string>;
  /** R and JavaScript, where the image has them. */
  languages?: Partial<Record<'r' | 'javascript', InstalledLanguage>>;
  limits: {
    memoryMb: number;
    cpus: number;
    timeoutMs: number;
    dataMb: number;
    maxFileMb: number;
    /** No network at all, or what the egress gateway lets the code reach (THREADLAB_EGRESS_ALLOW). */
    network: false | EgressDescription;
    /** Variables are saved and restored when the thread's container is replaced (THREADLAB_STATE_MAX_MB > 0). */
    durableVariables?: boolean;
  };
}

/** The languages an image offers: Python and bash, then the others it has installed. */
export function languagesOf(env: Pick<SandboxEnvironment, 'languages'>): Language[] {
  return [...BASE_LANGUAGES, ...LANGUAGES.filter((l) => env.languages?.[l as 'r' | 'javascript'] !== undefined)];
}
