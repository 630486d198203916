import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Platform } from '../../domain/thread-key.js';

/**
 * The audit trail's line format, version 1: one JSON object per line (JSON Lines), UTF-8, `\n`-ended.
 * Every line has the common fields below; `kind` says which event it records:
 *
 * - `run`: one run of code in a thread's sandbox (the model's, the user's own, or one the bot made);
 * - `model_call`: one request to the chat model;
 * - `egress`: one proxy request of code to the network (the egress gateway's line);
 * - `approval`: how one request to approve the model's code ended (THREADLAB_APPROVAL=ask; added to v1,
 *   which readers that ignore unknown kinds already accept);
 * - `answer`: how one turn of the model ended, what it spent and how many of its answer's figures were found
 *   in run output (THREADLAB_VERIFY_FIGURES; added to v1 the same way). It holds counts, never the answer.
 *
 * - `query`: one query to a read-only SQL data source (issue 38; added to v1 the same way): the source, the SQL
 *   (bounded), rows, bytes, milliseconds and how it ended. Never a connection detail.
 *
 * Readers must ignore fields they do not know (later versions add fields, never change one's meaning).
 * Erasure (`threadlab purge --user`) keeps a line but replaces `user` (and an approval's `admin`) with a
 * pseudonym and sets `pseudonym: true` (a purged thread's run lines get pseudonyms for their file names the
 * same way); `threadHash` lets a purge or `threadlab audit --thread` match
 * egress lines, which carry only the hash.
 */
export const AUDIT_FORMAT_VERSION = 1;

/** Most files listed per direction on a run line; the rest are counted in `filesInMore`/`filesOutMore`. */
export const AUDIT_MAX_FILES = 50;
/** Longest string field (names, ids, reasons), in characters; longer ones end with `…`. */
export const AUDIT_MAX_STRING_CHARS = 300;
/** Longest SQL kept on a query line, in characters. */
export const AUDIT_MAX_SQL_CHARS = 4_000;

/** A file named on a run line: its path under `/mnt/data` and its size. */
export interface AuditFile {
  name: string;
  bytes: number;
}

/** Token counts of model calls. */
export interface AuditTokens {
  prompt: number;
  completion: number;
}

/** Fields on every line. `null` where the event has no such fact (a CLI run has no platform user). */
export interface AuditCommon {
  v: 1;
  /** When the event ended, ISO 8601 UTC with milliseconds. */
  ts: string;
  /** Platform user id of the person whose message led to the event (or a pseudonym after erasure). */
  user: string | null;
  /** Set once `user` (or an approval's `admin`, or a purged thread's file names) was replaced by a pseudonym. */
  pseudonym?: true;
  platform: Platform | null;
  /** The thread's workspace as its platform names it (`ThreadRef.workspace`). */
  workspace: string | null;
  channel: string | null;
  /** The thread key (`platform:workspace:channel:thread`, parts percent-encoded); `null` on egress lines. */
  thread: string | null;
  /** {@link threadHash} of the thread key: the same on every line of a thread, egress lines included. */
  threadHash: string;
  /** The queue job that answered the message, when the event happened inside one. */
  job: string | null;
}

/** One run of code. */
export interface AuditRunRecord extends AuditCommon {
  kind: 'run';
  /** Who wrote the code: the model (a tool call), the user (direct mode), or the bot itself (export). */
  origin: 'model' | 'user' | 'system';
  /**
   * On a run of the user's code not typed in the asking message: `message` (another message's fenced blocks, run
   * with a platform's "run this message" action) or `attachment` (an attached script). Absent otherwise.
   */
  source?: 'message' | 'attachment';
  /** With `source`: whether the person who asked (`user`) wrote that code (`invoker`) or someone else did (`other`). */
  sourceAuthor?: 'invoker' | 'other';
  language: string;
  /** SHA-256 of the code's UTF-8 bytes, hex. */
  codeSha256: string;
  codeBytes: number;
  /** The run's status (`ok`, `error`, `timeout`, …) or `sandbox_failed` when the sandbox threw. */
  status: string;
  /** The sandbox's error code when `status` is `sandbox_failed`. */
  errorCode?: string;
  durationMs: number;
  /** Tokens of the model call whose tool call this run carried out; `null` when no model wrote the code. */
  tokens: AuditTokens | null;
  /** Files the message put into `/mnt/data` before the run (uploads, earlier uploads fetched again). */
  filesIn: AuditFile[];
  filesInMore: number;
  /** Files the run created or changed. */
  filesOut: AuditFile[];
  filesOutMore: number;
}

/** One request to the chat model. */
export interface AuditModelCallRecord extends AuditCommon {
  kind: 'model_call';
  model: string;
  /** `ok`, `failed` (after the client's retries), or `cancelled` (the user or the turn's deadline). */
  status: 'ok' | 'failed' | 'cancelled';
  errorCode?: string;
  durationMs: number;
  /** As the server reported them; 0 when it reported none (the loop then estimates for its budget). */
  tokens: AuditTokens;
  /** Tool calls (runs asked for) in the response. */
  toolCalls: number;
  finishReason: string | null;
}

/** One proxy request from a sandbox (see src/egress/audit.ts). */
export interface AuditEgressRecord extends AuditCommon {
  kind: 'egress';
  destination: string;
  bytesUp: number;
  bytesDown: number;
  verdict: string;
  reason: string | null;
}

/**
 * How one approval request ended. `user` is the asker. Who decided is said as a role, so erasing the
 * asker (which pseudonymises `user`) leaves no copy of their id here; an admin's own id is in `admin`.
 */
export interface AuditApprovalRecord extends AuditCommon {
  kind: 'approval';
  /**
   * `run` or `skip` (a press), `timeout` (nobody decided in time: skipped), `unavailable` (the buttons
   * could not be shown, or too many approvals waited: skipped), `cancelled` (the turn was stopped).
   */
  decision: 'run' | 'skip' | 'timeout' | 'unavailable' | 'cancelled';
  /** Who pressed: the asker or an admin (THREADLAB_APPROVAL_ADMINS); `null` when nobody did. */
  by: 'asker' | 'admin' | null;
  /** The admin's platform user id when `by` is `admin`, else `null`. */
  admin: string | null;
  /** From the request until its end, in ms. */
  waitedMs: number;
  language: string;
  /** SHA-256 of the code shown, hex: the same as its run line's `codeSha256` when it ran. */
  codeSha256: string;
  codeBytes: number;
  /** The request's id, as its buttons carried it; `null` when it was refused before it had one. */
  approvalId: string | null;
}

/**
 * How one turn of the model ended (one line per turn; the user's own code has none). The figure fields are
 * `null` when the answer's figures were not checked (THREADLAB_VERIFY_FIGURES=off, or a turn that ran no code
 * and had no files).
 */
export interface AuditAnswerRecord extends AuditCommon {
  kind: 'answer';
  /** `answer`, or why the turn stopped before one: `budget` (rounds, tokens or time), `failed`, `cancelled`. */
  outcome: 'answer' | 'budget' | 'cancelled' | 'failed';
  /** The model's name; `null` when the turn did not say. */
  model: string | null;
  /** Runs of code the turn made. */
  runs: number;
  /** The turn's model tokens, all its calls together (as the loop counted them for its budget). */
  tokens: AuditTokens;
  /** From the question to the answer, in ms. */
  durationMs: number;
  /** Figures of the answer checked against the turn's run output. */
  figuresChecked: number | null;
  /** Of those, figures no output holds. */
  figuresNotFound: number | null;
  /** Figures past the checker's limit, not checked. */
  figuresUnchecked: number | null;
  /** Whether the model was asked once to compute or remove figures no run printed (`ask`). */
  verificationRound: boolean;
}

/**
 * One run of a schedule (added to v1 like `approval`): it ran as its creator (`user`), and its runs and model calls
 * have lines of their own with the same `job`.
 */
export interface AuditScheduleRecord extends AuditCommon {
  kind: 'schedule';
  origin: 'schedule';
  schedule: string;
  /** `rerun` (the thread's notebook) or `ask` (the question again). */
  task: 'rerun' | 'ask';
  outcome: 'ok' | 'failed' | 'cancelled' | 'skipped' | 'stopped_access' | 'stopped_budget';
  /** Failed runs in a row after this one; `null` when not counted. */
  failuresInRow: number | null;
}

/**
 * A reader's 👍 or 👎 on one answer of the model (added to v1 like `approval`). `user` is who clicked; `model` comes
 * from the answer ledger, never from the click. A person's later click on the same answer writes a new line with
 * `previous` set: readers count each person's last verdict per answer (`threadlab feedback`).
 */
export interface AuditFeedbackRecord extends AuditCommon {
  kind: 'feedback';
  verdict: 'good' | 'bad';
  /** The person's earlier verdict on this answer, when this line changes or repeats it; else `null`. */
  previous: 'good' | 'bad' | null;
  model: string;
  /** The answer: the id of the message it answered (the answer ledger's key), the same on each line about it. */
  answer: string;
  /** The answer's first platform message id. */
  answerMessage: string | null;
  /** The person's comment (at most 500 characters), or `null`. */
  comment: string | null;
}

/** One query to a data source (added to v1 like `approval`); the place and person are the common fields. */
export interface AuditQueryRecord extends AuditCommon {
  kind: 'query';
  source: string;
  /** The SQL, at most {@link AUDIT_MAX_SQL_CHARS} characters (longer ends with `…`); `sqlSha256` is of all of it. */
  sql: string;
  sqlSha256: string;
  sqlChars: number;
  /** `ok`, or the failure's kind (`refused`, `timeout`, `sql`, `unknown_source`, `not_allowed`, `unreachable`, `stopped`). */
  outcome: string;
  rows: number;
  bytes: number;
  durationMs: number;
  /** Which cap cut the result, when one did. */
  cut: 'rows' | 'bytes' | null;
}

/** One line of the audit trail. */
export type AuditRecord =
  | AuditRunRecord
  | AuditModelCallRecord
  | AuditEgressRecord
  | AuditApprovalRecord
  | AuditAnswerRecord
  | AuditScheduleRecord
  | AuditFeedbackRecord
  | AuditQueryRecord;

/** The kinds of line, as `threadlab audit --kind` accepts them. */
export const AUDIT_KINDS = [
  'run',
  'model_call',
  'egress',
  'approval',
  'answer',
  'schedule',
  'feedback',
  'query',
] as const;

/** The hash of a thread key on audit lines: the sandbox's, so a purge matches both (defined in domain). */
export { threadHash } from '../../domain/thread-key.js';

/** SHA-256 hex of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A string cut to {@link AUDIT_MAX_STRING_CHARS}, so no field can make a line unbounded. */
export function boundString(text: string): string {
  return text.length <= AUDIT_MAX_STRING_CHARS ? text : `${text.slice(0, AUDIT_MAX_STRING_CHARS - 1)}…`;
}

/** At most {@link AUDIT_MAX_FILES} files, names bounded, and how many more there were. */
export function boundFiles(files: readonly AuditFile[]): { files: AuditFile[]; more: number } {
  const kept = files.slice(0, AUDIT_MAX_FILES).map((f) => ({ name: boundString(f.name), bytes: f.bytes }));
  return { files: kept, more: files.length - kept.length };
}

/** The line of a record: one JSON object and a newline. */
export function formatAuditLine(record: AuditRecord): string {
  return `${JSON.stringify(record)}\n`;
}

const common = {
  v: z.literal(1),
  ts: z.string(),
  user: z.string().nullable(),
  kind: z.string(),
  thread: z.string().nullable(),
  threadHash: z.string(),
};

/** What a reader needs of a line; other fields pass through untouched. */
const lineSchema = z.looseObject(common);

/** A parsed line: the common fields checked, the rest as written. */
export type AuditLine = z.infer<typeof lineSchema> & Record<string, unknown>;

/** Parses one line of the audit file; `undefined` for a line that is not a v1 audit record. */
export function parseAuditLine(line: string): AuditLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = lineSchema.safeParse(value);
  return parsed.success ? (parsed.data as AuditLine) : undefined;
}
