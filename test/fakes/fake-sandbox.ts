import { ThreadlabError } from '../../src/domain/errors.js';
import type {
  Artifact,
  ExecutionResult,
  FilePreview,
  SandboxEnvironment,
  SandboxFile,
} from '../../src/domain/execution.js';
import type { RunRequest, Sandbox } from '../../src/ports/sandbox.js';

/** What a scripted run produces; everything is optional and defaults to a silent success. */
export interface FakeRunOutcome extends Partial<Omit<ExecutionResult, 'artifacts' | 'executionCount'>> {
  /** Files the "code" writes under /mnt/data; they become artifacts (created or modified). */
  writeFiles?: Record<string, string | Buffer>;
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
}

export type FakeRunHandler = (context: FakeRunContext) => FakeRunOutcome | Promise<FakeRunOutcome>;

export interface FakeSandboxOptions {
  /** Called for each run when no scripted result is queued. @defaultValue a silent success */
  handler?: FakeRunHandler;
  /** Results consumed in order before `handler` is used. */
  results?: FakeRunOutcome[];
  environment?: Partial<SandboxEnvironment>;
  /** Overrides previews; the default parses CSV and JSON the simple way. */
  preview?: (path: string, data: Buffer) => FilePreview;
}

/** One recorded call to the fake, in order. */
export interface FakeSandboxCall {
  method: 'run' | 'putFile' | 'listFiles' | 'readFile' | 'previewFiles' | 'reset' | 'environment' | 'close';
  key?: string;
  detail?: unknown;
}

const MIME: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  json: 'application/json',
  txt: 'text/plain',
  md: 'text/markdown',
  png: 'image/png',
  jpg: 'image/jpeg',
  svg: 'image/svg+xml',
  html: 'text/html',
  py: 'text/x-python',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  parquet: 'application/vnd.apache.parquet',
};

/** The MIME type the fake reports for a path, from its extension. */
export function fakeMime(path: string): string {
  return MIME[path.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

export const FAKE_ENVIRONMENT: SandboxEnvironment = {
  imageVersion: 'fake-1',
  python: '3.12.7',
  packages: { pandas: '2.2.3', numpy: '2.1.3', matplotlib: '3.9.2', openpyxl: '3.1.5' },
  limits: { memoryMb: 1024, cpus: 1, timeoutMs: 60_000, dataMb: 512, maxFileMb: 100, network: false },
};

interface Session {
  files: Map<string, { data: Buffer; modifiedMs: number }>;
  executionCount: number;
  live: boolean;
}

function inferDtype(values: string[]): string {
  const present = values.filter((v) => v !== '');
  if (present.length > 0 && present.every((v) => /^-?\d+$/.test(v))) return 'int64';
  if (present.length > 0 && present.every((v) => !Number.isNaN(Number(v)))) return 'float64';
  return 'object';
}

/** The default preview: CSV as a table with inferred dtypes, JSON and text by their first lines. */
export function simplePreview(path: string, data: Buffer): FilePreview {
  const text = data.toString('utf8');
  if (/\.(csv|tsv)$/i.test(path)) {
    const sep = path.toLowerCase().endsWith('.tsv') ? '\t' : ',';
    const lines = text.split(/\r?\n/).filter((l) => l !== '');
    const header = (lines[0] ?? '').split(sep);
    const rows = lines.slice(1).map((l) => l.split(sep));
    const columns = header.map((name, i) => ({ name, dtype: inferDtype(rows.map((r) => r[i] ?? '')) }));
    return {
      path,
      bytes: data.length,
      kind: 'table',
      tables: [{ rows: rows.length, columns, head: lines.slice(0, 6).join('\n') }],
    };
  }
  if (/\.json$/i.test(path)) return { path, bytes: data.length, kind: 'json', text: text.slice(0, 500) };
  if (!data.subarray(0, 200).includes(0))
    return { path, bytes: data.length, kind: 'text', text: text.split('\n').slice(0, 10).join('\n') };
  return { path, bytes: data.length, kind: 'binary' };
}

/**
 * An in-memory Sandbox for unit tests: files per session key, results scripted in order or computed by
 * a handler, streaming callbacks called, every call recorded in `calls` and every run in `runs`.
 */
export class FakeSandbox implements Sandbox {
  readonly calls: FakeSandboxCall[] = [];
  readonly runs: { key: string; request: RunRequest }[] = [];
  private readonly sessions = new Map<string, Session>();
  private readonly queue: FakeRunOutcome[];
  private closed = false;

  constructor(private readonly options: FakeSandboxOptions = {}) {
    this.queue = [...(options.results ?? [])];
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
    const outcome =
      this.queue.shift() ?? (await this.options.handler?.({ key, request, index, files: this.view(session) })) ?? {};
    if (outcome.throws) throw outcome.throws;
    const started = Date.now();
    const interrupted = outcome.delayMs ? await this.wait(outcome.delayMs, request) : false;
    const before = new Map([...session.files].map(([p, f]) => [p, f.data]));
    const artifacts: Artifact[] = [];
    for (const [path, content] of Object.entries(outcome.writeFiles ?? {})) {
      const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
      session.files.set(path, { data, modifiedMs: Date.now() });
      const old = before.get(path);
      if (!old || !old.equals(data))
        artifacts.push({ path, bytes: data.length, mime: fakeMime(path), change: old ? 'modified' : 'created' });
    }
    const stdout = outcome.stdout ?? '';
    const stderr = outcome.stderr ?? '';
    const displays = outcome.displays ?? [];
    if (stdout) request.onStdout?.(stdout);
    if (stderr) request.onStderr?.(stderr);
    for (const display of displays) request.onDisplay?.(display);
    const status = interrupted ? 'timeout' : (outcome.status ?? (outcome.error ? 'error' : 'ok'));
    const stateReset =
      outcome.stateReset ??
      (session.live ? undefined : session.executionCount > 0 ? { reason: 'the interpreter was restarted' } : undefined);
    session.executionCount = stateReset ? 1 : session.executionCount + 1;
    session.live = status !== 'killed';
    const { writeFiles: _w, throws: _t, delayMs: _d, ...rest } = outcome;
    return {
      ...rest,
      status,
      stdout,
      stderr,
      displays,
      artifacts,
      durationMs: outcome.durationMs ?? Date.now() - started,
      executionCount: session.executionCount,
      ...(stateReset ? { stateReset } : {}),
      ...(interrupted ? { killReason: request.signal?.aborted ? 'cancelled' : 'timeout' } : {}),
    };
  }

  async putFile(key: string, name: string, data: Buffer): Promise<SandboxFile> {
    this.record({ method: 'putFile', key, detail: { name, bytes: data.length } });
    const path = name.replace(/[\\/]/g, '_');
    const modifiedMs = Date.now();
    this.session(key).files.set(path, { data, modifiedMs });
    return { path, bytes: data.length, mime: fakeMime(path), modifiedMs };
  }

  async listFiles(key: string): Promise<SandboxFile[]> {
    this.record({ method: 'listFiles', key });
    const files = this.sessions.get(key)?.files ?? new Map();
    return [...files].map(([path, f]) => ({
      path,
      bytes: f.data.length,
      mime: fakeMime(path),
      modifiedMs: f.modifiedMs,
    }));
  }

  async readFile(key: string, path: string): Promise<Buffer> {
    this.record({ method: 'readFile', key, detail: { path } });
    const file = this.sessions.get(key)?.files.get(path);
    if (!file) throw new ThreadlabError('sandbox_file_rejected', `No file ${path} in /mnt/data.`, { isPolicy: true });
    return file.data;
  }

  async previewFiles(key: string, paths: string[]): Promise<FilePreview[]> {
    this.record({ method: 'previewFiles', key, detail: { paths } });
    const files = this.sessions.get(key)?.files;
    const preview = this.options.preview ?? simplePreview;
    return paths.map((path) => {
      const file = files?.get(path);
      return file ? preview(path, file.data) : { path, bytes: 0, kind: 'binary', error: 'no such file' };
    });
  }

  async reset(key: string): Promise<void> {
    this.record({ method: 'reset', key });
    this.sessions.delete(key);
  }

  isLive(key: string): boolean {
    return this.sessions.get(key)?.live ?? false;
  }

  async environment(): Promise<SandboxEnvironment> {
    this.record({ method: 'environment' });
    return { ...FAKE_ENVIRONMENT, ...this.options.environment };
  }

  async close(): Promise<void> {
    this.record({ method: 'close' });
    this.closed = true;
  }

  /** The bytes of a session's file, or undefined (no call is recorded). */
  fileOf(key: string, path: string): Buffer | undefined {
    return this.sessions.get(key)?.files.get(path)?.data;
  }

  private session(key: string): Session {
    if (this.closed) throw new ThreadlabError('sandbox_start_failed', 'The sandbox is closed.');
    let session = this.sessions.get(key);
    if (!session) {
      session = { files: new Map(), executionCount: 0, live: false };
      this.sessions.set(key, session);
    }
    return session;
  }

  private view(session: Session): ReadonlyMap<string, Buffer> {
    return new Map([...session.files].map(([p, f]) => [p, f.data]));
  }

  /** Resolves true when the run was interrupted (abort or its timeout) before `delayMs`. */
  private wait(delayMs: number, request: RunRequest): Promise<boolean> {
    const limitMs = Math.min(delayMs, request.timeoutMs ?? delayMs);
    return new Promise((resolve) => {
      if (request.signal?.aborted) return resolve(true);
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        request.signal?.removeEventListener('abort', onAbort);
        resolve(limitMs < delayMs);
      }, limitMs);
      request.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private record(call: FakeSandboxCall): void {
    this.calls.push(call);
  }
}
