import { ThreadlabError } from '../../src/domain/errors.js';
import type { ExecutionResult, FilePreview, SandboxEnvironment, SandboxFile } from '../../src/domain/execution.js';
import type { PreviewOptions, RunRequest, Sandbox } from '../../src/ports/sandbox.js';
import { sanitizeFileName } from '../../sandbox/file-names.js';
import { mimeFromName } from '../../src/domain/mime.js';
import { interruptionText, KILL_TEXT } from '../../sandbox/run-execution.js';
import { previewWithinBudget, simplePreview, waitUnlessAborted } from './fake-previews.js';
import {
  fileTooLarge,
  listSessionFiles,
  readSessionFile,
  receiveUpload,
  writeRunFiles,
  type SessionFiles,
} from './fake-session-files.js';

export { simplePreview } from './fake-previews.js';

/** What a scripted run produces; everything is optional and defaults to a silent success. */
export interface FakeRunOutcome extends Partial<Omit<ExecutionResult, 'artifacts' | 'executionCount'>> {
  /** Files the "code" writes under /mnt/data; they become artifacts (created or modified) within the limits. */
  writeFiles?: Record<string, string | Buffer>;
  /** Files the "code" deletes from /mnt/data (before it writes `writeFiles`). */
  deleteFiles?: string[];
  /** Throw this instead of returning a result (an infrastructure failure). */
  throws?: Error;
  /** Wait this long before finishing, in ms; an abort or the run's timeout cuts it short. */
  delayMs?: number;
}

/** What a handler sees of a run. */
export interface FakeRunContext {
  key: string;
  request: RunRequest;
  /** 0-based index of this run among all runs of this fake. */
  index: number;
  /** The session's files, path → bytes (read-only view). */
  files: ReadonlyMap<string, Buffer>;
  /** The session interpreter's variables: kept between runs, gone after a kill, a retire or a reset. */
  variables: Map<string, unknown>;
}

export type FakeRunHandler = (context: FakeRunContext) => FakeRunOutcome | Promise<FakeRunOutcome>;

/** Limits the fake applies like the real sandbox does. */
export interface FakeSandboxLimits {
  /** Largest file brought back by a run, uploaded or read. @defaultValue 100 MiB (THREADLAB_MAX_FILE_MB) */
  maxFileBytes: number;
  /** Total brought back by one run. @defaultValue twice maxFileBytes (THREADLAB_MAX_RUN_FILES_MB) */
  maxRunFilesBytes: number;
  /** A run's time limit when the request names none. @defaultValue 60000 */
  timeoutMs: number;
  /** Budget of one preview request. @defaultValue 10000 (THREADLAB_PREVIEW_TIMEOUT_MS) */
  previewTimeoutMs: number;
}

export interface FakeSandboxOptions {
  /** Called for each run when no scripted result is queued. @defaultValue a silent success */
  handler?: FakeRunHandler;
  /** Results consumed in order before `handler` is used. */
  results?: FakeRunOutcome[];
  environment?: Partial<SandboxEnvironment>;
  limits?: Partial<FakeSandboxLimits>;
  /** Overrides previews; the default parses CSV and JSON the simple way. */
  preview?: (path: string, data: Buffer) => FilePreview;
  /** How long previewing a file takes, in ms, to exercise the time budget. @defaultValue 0 */
  previewCostMs?: (path: string, data: Buffer) => number;
}

/** One recorded call to the fake, in order. */
export interface FakeSandboxCall {
  method:
    | 'run'
    | 'putFile'
    | 'listFiles'
    | 'readFile'
    | 'previewFiles'
    | 'prepare'
    | 'reset'
    | 'recycle'
    | 'environment'
    | 'close';
  key?: string;
  detail?: unknown;
}

/** The MIME type the fake reports for a path: the sandbox's own table. */
export const fakeMime = mimeFromName;

const MIB = 1024 * 1024;

export const FAKE_ENVIRONMENT: SandboxEnvironment = {
  imageVersion: 'fake-1',
  python: '3.12.7',
  packages: { pandas: '2.2.3', numpy: '2.1.3', matplotlib: '3.9.2', openpyxl: '3.1.5' },
  limits: { memoryMb: 1024, cpus: 1, timeoutMs: 60_000, dataMb: 512, maxFileMb: 100, network: false },
};

interface Session {
  files: SessionFiles;
  variables: Map<string, unknown>;
  executionCount: number;
  live: boolean;
  /** Why the interpreter went away outside a run; said by the next run. */
  pendingReset?: string;
}

/**
 * An in-memory Sandbox for unit tests: files per session key, results scripted in order or computed by
 * a handler, streaming callbacks called, every call recorded in `calls` and every run in `runs`. Around
 * what the "code" does, it behaves as the Sandbox contract says (test/contract/sandbox-contract.ts).
 */
export class FakeSandbox implements Sandbox {
  readonly calls: FakeSandboxCall[] = [];
  readonly runs: { key: string; request: RunRequest }[] = [];
  readonly limits: FakeSandboxLimits;
  private readonly sessions = new Map<string, Session>();
  private readonly queue: FakeRunOutcome[];
  private closed = false;

  constructor(private readonly options: FakeSandboxOptions = {}) {
    this.queue = [...(options.results ?? [])];
    const maxFileBytes = options.limits?.maxFileBytes ?? FAKE_ENVIRONMENT.limits.maxFileMb * MIB;
    this.limits = {
      maxFileBytes,
      maxRunFilesBytes: 2 * maxFileBytes,
      timeoutMs: FAKE_ENVIRONMENT.limits.timeoutMs,
      previewTimeoutMs: 10_000,
      ...options.limits,
    };
  }

  /** Queues results for the next runs. */
  enqueue(...results: FakeRunOutcome[]): void {
    this.queue.push(...results);
  }

  async run(key: string, request: RunRequest): Promise<ExecutionResult> {
    this.record({
      method: 'run',
      key,
      detail: { language: request.language, code: request.code, timeoutMs: request.timeoutMs },
    });
    const session = this.session(key);
    const index = this.runs.length;
    this.runs.push({ key, request });
    const pendingReset = session.pendingReset;
    session.pendingReset = undefined;
    session.live = true;
    const context = { key, request, index, files: this.view(session), variables: session.variables };
    const outcome = this.queue.shift() ?? (await this.options.handler?.(context)) ?? {};
    if (outcome.throws) throw outcome.throws;
    const started = Date.now();
    const timeoutMs = request.timeoutMs ?? this.limits.timeoutMs;
    const interruptedBy = outcome.delayMs ? await this.wait(outcome.delayMs, timeoutMs, request.signal) : undefined;
    for (const path of outcome.deleteFiles ?? []) session.files.delete(path);
    const { artifacts, skippedArtifacts } = writeRunFiles(session.files, outcome.writeFiles ?? {}, this.limits);
    const stdout = outcome.stdout ?? '';
    const stderr = outcome.stderr ?? '';
    const displays = outcome.displays ?? [];
    if (stdout) request.onStdout?.(stdout);
    if (stderr) request.onStderr?.(stderr);
    for (const display of displays) request.onDisplay?.(display);
    const { writeFiles: _w, deleteFiles: _x, throws: _t, delayMs: _d, ...rest } = outcome;
    const result: ExecutionResult = {
      ...rest,
      status: interruptedBy ? 'timeout' : (outcome.status ?? (outcome.error ? 'error' : 'ok')),
      stdout,
      stderr,
      displays,
      artifacts,
      durationMs: outcome.durationMs ?? Date.now() - started,
      executionCount: 0,
    };
    if (skippedArtifacts.length > 0)
      result.skippedArtifacts = [...(outcome.skippedArtifacts ?? []), ...skippedArtifacts];
    if (interruptedBy) {
      result.interruptedBy = interruptedBy;
      result.error = { name: 'KeyboardInterrupt', value: interruptionText(interruptedBy, timeoutMs), traceback: '' };
    }
    const reset = outcome.stateReset ?? (pendingReset ? { reason: pendingReset } : undefined);
    if (reset) {
      result.stateReset = reset;
      session.executionCount = 0;
    }
    if (!request.internal) session.executionCount += 1; // the bot's own runs are not counted
    result.executionCount = session.executionCount;
    if (result.status === 'killed') this.kill(session, result);
    return result;
  }

  async putFile(key: string, name: string, source: Buffer | AsyncIterable<Uint8Array>): Promise<SandboxFile> {
    const path = sanitizeFileName(name);
    const maxBytes = this.limits.maxFileBytes;
    const data = await receiveUpload(path, source, maxBytes);
    this.record({ method: 'putFile', key, detail: { name, bytes: data.length } });
    if (data.length > maxBytes) throw fileTooLarge(path, maxBytes);
    const session = this.session(key);
    // The real sandbox starts the session's container to receive the file.
    session.live = true;
    const modifiedMs = Date.now();
    session.files.set(path, { data, modifiedMs });
    return { path, bytes: data.length, mime: fakeMime(path), modifiedMs };
  }

  async listFiles(key: string): Promise<SandboxFile[]> {
    this.record({ method: 'listFiles', key });
    return listSessionFiles(this.sessions.get(key)?.files ?? new Map());
  }

  async readFile(key: string, path: string): Promise<Buffer> {
    this.record({ method: 'readFile', key, detail: { path } });
    return readSessionFile(this.sessions.get(key)?.files, path, this.limits.maxFileBytes);
  }

  async previewFiles(key: string, paths: string[], options: PreviewOptions = {}): Promise<FilePreview[]> {
    this.record({ method: 'previewFiles', key, detail: { paths } });
    const session = this.session(key);
    session.live = true; // previews run in the session's container
    return previewWithinBudget({
      files: this.view(session),
      paths,
      budgetMs: options.timeoutMs ?? this.limits.previewTimeoutMs,
      signal: options.signal,
      preview: this.options.preview ?? simplePreview,
      costMs: this.options.previewCostMs ?? (() => 0),
    });
  }

  async prepare(key: string): Promise<void> {
    this.record({ method: 'prepare', key });
    this.session(key).live = true; // the session's container is started, as the Docker sandbox's is
  }

  async reset(key: string): Promise<void> {
    this.record({ method: 'reset', key });
    this.sessions.delete(key);
  }

  /** As the real sandbox: a fresh interpreter whose variables come back from their saved state, files kept. */
  async recycle(key: string): Promise<void> {
    this.record({ method: 'recycle', key });
    const session = this.sessions.get(key);
    if (session?.live) session.live = false;
  }

  isLive(key: string): boolean {
    return !this.closed && (this.sessions.get(key)?.live ?? false);
  }

  async environment(): Promise<SandboxEnvironment> {
    this.record({ method: 'environment' });
    const limits = {
      ...FAKE_ENVIRONMENT.limits,
      timeoutMs: this.limits.timeoutMs,
      maxFileMb: Math.round(this.limits.maxFileBytes / MIB),
    };
    return { ...FAKE_ENVIRONMENT, limits, ...this.options.environment };
  }

  async close(): Promise<void> {
    this.record({ method: 'close' });
    this.closed = true;
  }

  /**
   * Drops the session's interpreter as the real sandbox does when a session is idle or evicted: files stay,
   * the session is no longer live, and the next run says why its variables were reset. No call is recorded.
   */
  retire(key: string, reason = 'the session was idle and its container was removed'): void {
    const session = this.sessions.get(key);
    if (!session?.live) return;
    session.live = false;
    session.variables.clear();
    session.pendingReset = reason;
  }

  /** The bytes of a session's file, or undefined (no call is recorded). */
  fileOf(key: string, path: string): Buffer | undefined {
    return this.sessions.get(key)?.files.get(path)?.data;
  }

  private session(key: string): Session {
    if (this.closed) throw new ThreadlabError('sandbox_start_failed', 'The sandbox is closed.');
    let session = this.sessions.get(key);
    if (!session) {
      session = { files: new Map(), variables: new Map(), executionCount: 0, live: false };
      this.sessions.set(key, session);
    }
    return session;
  }

  /** A killed run takes the interpreter with it and says so in its own result. */
  private kill(session: Session, result: ExecutionResult): void {
    result.killReason ??= 'crash';
    const reason = KILL_TEXT[result.killReason];
    result.stateReset ??= { reason };
    result.error ??= { name: 'SandboxKilled', value: reason, traceback: '' };
    session.live = false;
    session.variables.clear();
    session.executionCount = 0;
  }

  private view(session: Session): ReadonlyMap<string, Buffer> {
    return new Map([...session.files].map(([p, f]) => [p, f.data]));
  }

  /** Waits `delayMs` unless the run is interrupted first: by its time limit or by a stop. */
  private async wait(
    delayMs: number,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<'timeout' | 'cancelled' | undefined> {
    if (await waitUnlessAborted(Math.min(delayMs, timeoutMs), signal)) return 'cancelled';
    return timeoutMs < delayMs ? 'timeout' : undefined;
  }

  private record(call: FakeSandboxCall): void {
    this.calls.push(call);
  }
}
