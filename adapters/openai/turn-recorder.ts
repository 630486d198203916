import { appendFileSync, closeSync, constants, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../src/logger.js';
import type { ExchangeRecord, ExchangeSink, RecordedRequest } from './recording-fetch.js';
import {
  MAX_LINE_CHARS,
  RECORDING_TYPE,
  RECORDING_VERSION,
  type ExchangeLine,
  type HeaderLine,
  type RecordedSettings,
} from './recording-format.js';
import { scrubSecrets } from './recording-redact.js';

/** The turn a request belongs to: its thread and job (one job is one turn, however long it waits for approval). */
export interface TurnIdentity {
  thread: string | null;
  job: string | null;
}

/** Options of {@link TurnRecorder}. */
export interface TurnRecorderOptions {
  /** Directory of the recordings (created with mode 0700: they hold users' conversations). */
  dir: string;
  /** Most bytes of one turn's file, the truncation line included. */
  maxBytes: number;
  /** Whether file contents stay in the recording (said in its header). */
  keepFiles: boolean;
  /** Every configured secret, replaced wherever it appears in a line. */
  secrets: readonly string[];
  /** The endpoint as it may be shown. */
  endpoint: string;
  settings: RecordedSettings;
  /** The turn of the current async context; undefined or without a job: not a turn, nothing is recorded. */
  turnOf: () => TurnIdentity | undefined;
  logger: Logger;
  /** Turns whose file is remembered for more exchanges; the oldest is forgotten first. @defaultValue 256 */
  maxOpenTurns?: number;
  /** The clock, in ms since the epoch. @defaultValue Date.now */
  now?: () => number;
}

/** Room kept at the end of a file for its truncation line, in bytes. */
const TRUNCATION_ROOM_BYTES = 400;

/** A name part safe in any file system: letters, digits, `.`, `_`, `-`, at most 60 characters, no leading dot. */
export function safeNamePart(text: string): string {
  const safe = text
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+/, '')
    .slice(0, 60);
  return safe || 'none';
}

/** One turn's file: its lines so far, in bytes, and whether it was cut at its cap. */
class TurnFile {
  private bytes = 0;
  private seq = 0;
  private stopped = false;
  private readonly startedMs: number;

  constructor(
    readonly path: string,
    private readonly owner: TurnRecorder,
    startedMs: number,
  ) {
    this.startedMs = startedMs;
  }

  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  elapsedMs(nowMs: number): number {
    return Math.max(0, nowMs - this.startedMs);
  }

  /** Appends a line, or the truncation line once the next one would pass the cap; never throws. */
  write(line: HeaderLine | ExchangeLine): void {
    if (this.stopped) return;
    const text = `${this.owner.serialize(line)}\n`;
    const size = Buffer.byteLength(text);
    const { maxBytes } = this.owner.options;
    if (this.bytes + size > maxBytes - TRUNCATION_ROOM_BYTES || text.length > MAX_LINE_CHARS) {
      this.stopped = true;
      const marker: ExchangeLine = {
        type: 'truncated',
        maxBytes,
        message: `The recording stopped here: the next line (${size} bytes) would pass THREADLAB_LLM_RECORD_MAX_MB (${maxBytes} bytes in all).`,
      };
      this.append(`${JSON.stringify(marker)}\n`);
      return;
    }
    this.append(text);
    this.bytes += size;
  }

  private append(text: string): void {
    try {
      if (this.bytes === 0 && !this.stopped) {
        // A new file, never through a link someone left in a shared directory.
        const fd = openSync(
          this.path,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          0o600,
        );
        try {
          writeSync(fd, text);
        } finally {
          closeSync(fd);
        }
      } else appendFileSync(this.path, text);
    } catch (err) {
      this.stopped = true;
      this.owner.options.logger.warn(
        { err, path: this.path },
        'model exchange recording failed; this turn is no longer recorded',
      );
    }
  }
}

/**
 * The sink of `THREADLAB_LLM_RECORD`: one JSONL file per turn in the directory, named by the time of its first
 * request, its thread and its job, and capped at `maxBytes` with a truncation line. Requests outside a turn (a
 * `doctor` probe) are not recorded. Writes are synchronous and small (one line per request and per response), so
 * a file holds every exchange once its turn has ended.
 */
export class TurnRecorder implements ExchangeSink {
  readonly options: TurnRecorderOptions;
  private readonly files = new Map<string, TurnFile>();
  private dirReady = false;

  constructor(options: TurnRecorderOptions) {
    this.options = options;
  }

  /** A line as written: JSON with every secret replaced. */
  serialize(line: HeaderLine | ExchangeLine): string {
    return scrubSecrets(JSON.stringify(line), this.options.secrets);
  }

  begin(request: RecordedRequest): ExchangeRecord | undefined {
    const turn = this.options.turnOf();
    if (!turn?.job) return undefined;
    const file = this.fileFor({ thread: turn.thread, job: turn.job });
    if (!file) return undefined;
    const seq = file.nextSeq();
    const now = this.options.now ?? Date.now;
    file.write({ type: 'request', seq, atMs: file.elapsedMs(now()), ...request });
    return {
      response: (response) => file.write({ type: 'response', seq, ...response }),
      networkError: (message) => file.write({ type: 'network_error', seq, message: message.slice(0, 2000) }),
    };
  }

  private fileFor(turn: { thread: string | null; job: string }): TurnFile | undefined {
    const known = this.files.get(turn.job);
    if (known) return known;
    const o = this.options;
    if (!this.dirReady) {
      try {
        mkdirSync(o.dir, { recursive: true, mode: 0o700 });
        this.dirReady = true;
      } catch (err) {
        o.logger.warn(
          { err, dir: o.dir },
          'THREADLAB_LLM_RECORD: the directory cannot be created; nothing is recorded',
        );
        return undefined;
      }
    }
    const nowMs = (o.now ?? Date.now)();
    const stamp = new Date(nowMs).toISOString().replace(/:/g, '-');
    const name = `${stamp}-${safeNamePart(turn.thread ?? 'no-thread')}-${safeNamePart(turn.job).slice(0, 16)}.jsonl`;
    const file = new TurnFile(join(o.dir, name), this, nowMs);
    this.files.set(turn.job, file);
    const max = o.maxOpenTurns ?? 256;
    for (const oldest of this.files.keys()) {
      if (this.files.size <= max) break;
      this.files.delete(oldest);
    }
    file.write({
      type: RECORDING_TYPE,
      version: RECORDING_VERSION,
      recordedAt: new Date(nowMs).toISOString(),
      thread: turn.thread,
      job: turn.job,
      endpoint: o.endpoint,
      settings: o.settings,
      files: o.keepFiles,
    });
    return file;
  }
}
