import { z } from 'zod';
import type { Language } from '../src/domain/execution.js';

/**
 * Frames the in-container supervisor (sandbox/image/runner/supervisor.py) writes, one JSON object per line.
 * The user's code runs in a separate kernel process and cannot write here, but the supervisor relays what
 * the kernel claims (output, displays, errors), so every frame is still untrusted and parsed here.
 */
const displaySchema = z.object({
  data: z.record(z.string(), z.string()),
  meta: z
    .object({
      title: z.string().optional(),
      xlabel: z.string().optional(),
      ylabel: z.string().optional(),
      width: z.number().optional(),
      height: z.number().optional(),
    })
    .optional(),
});

const fileInfoSchema = z.object({ path: z.string(), bytes: z.number(), mime: z.string(), modifiedMs: z.number() });
const errorSchema = z.object({ name: z.string(), value: z.string(), traceback: z.string() });

const kernelRestartSchema = z.object({
  cause: z.enum(['crash', 'memory', 'unresponsive']),
  detail: z.string().max(2000),
});

/** R or Node in the image (language_session.py): a version and the main packages it names. */
const runtimeSchema = z.object({
  version: z.string().max(100),
  packages: z.record(z.string().max(100), z.string().max(100)),
});

export const readyFrameSchema = z.object({
  type: z.literal('ready'),
  python: z.string(),
  packages: z.record(z.string(), z.string()),
  /** The languages beyond Python and bash that the image has (absent from images before them). */
  languages: z.object({ r: runtimeSchema.optional(), javascript: runtimeSchema.optional() }).optional(),
  imageVersion: z.string().optional(),
});

export const resultFrameSchema = z.object({
  type: z.literal('result'),
  id: z.string(),
  /** `killed`: the kernel process died during the run (see `kernelRestart`). */
  status: z.enum(['ok', 'error', 'interrupted', 'killed']),
  executionCount: z.number(),
  durationMs: z.number(),
  stdout: z.string(),
  stderr: z.string(),
  artifacts: z.array(
    z.object({ path: z.string(), bytes: z.number(), mime: z.string(), change: z.enum(['created', 'modified']) }),
  ),
  deleted: z.array(z.string()).default([]),
  error: errorSchema.optional(),
  truncated: z
    .object({ stdoutBytes: z.number(), stderrBytes: z.number(), fullOutputPath: z.string().optional() })
    .optional(),
  skippedArtifacts: z
    .array(z.object({ path: z.string(), reason: z.string(), bytes: z.number().optional() }))
    .optional(),
  /** Files not brought back beyond those listed. */
  skippedMore: z.number().optional(),
  /** Processes the run left behind that the supervisor stopped when it ended. */
  stoppedProcesses: z.number().int().nonnegative().optional(),
  /** The kernel process died (during this run, or since the last one) and a new one was started. */
  kernelRestart: kernelRestartSchema.optional(),
});

const unsavedSchema = z.object({ name: z.string().max(100), type: z.string().max(100), why: z.string().max(300) });

/**
 * The answer to save_state / restore_state (sandbox/image/runner/state.py) and to warm. Claims of the user's own process, like
 * everything else here: lists are capped, and the bytes of a saved file are counted again as they are copied.
 */
export const stateFrameSchema = z.object({
  type: z.literal('state'),
  id: z.string(),
  /** Why the save or restore did not happen (a time limit, a corrupted file, an exception). */
  failed: z.string().max(1000).optional(),
  /** The state passed maxBytes; nothing was left behind. */
  tooLarge: z.boolean().optional(),
  bytes: z.number().nonnegative().optional(),
  digest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** The state is byte for byte the one saved last (previousDigest): no file was written. */
  unchanged: z.boolean().optional(),
  variables: z.number().int().nonnegative().optional(),
  notSaved: z.array(unsavedSchema).max(50).optional(),
  notSavedMore: z.number().int().nonnegative().optional(),
  restored: z.number().int().nonnegative().optional(),
  names: z.array(z.string().max(200)).max(50).optional(),
  notRestored: z.array(unsavedSchema).max(50).optional(),
  notRestoredMore: z.number().int().nonnegative().optional(),
  seconds: z.number().nonnegative().optional(),
  /** The modules a `warm` loaded. */
  loaded: z.array(z.string().max(100)).max(10).optional(),
  kernelRestart: kernelRestartSchema.optional(),
  /** The saved file came before this frame, in `chunk` frames (a save asked with `stream`), and is gone from the container. */
  streamed: z.boolean().optional(),
});

/**
 * A connection of the code, relayed by the supervisor to the egress gateway (sandbox/image/runner/egress_relay.py):
 * opened, bytes (at most 48 KiB a frame), the code's side ended, closed, or bytes the code's side consumed.
 */
export const egressFrameSchema = z.object({
  type: z.literal('egress'),
  id: z.null(),
  event: z.enum(['open', 'data', 'end', 'close', 'ack']),
  conn: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  base64: z
    .string()
    .max(4 * Math.ceil((48 * 1024) / 3))
    .optional(),
  bytes: z
    .number()
    .int()
    .nonnegative()
    .max(1 << 30)
    .optional(),
});

const previewSchema = z.object({
  path: z.string(),
  bytes: z.number(),
  kind: z.enum(['table', 'json', 'text', 'image', 'binary']),
  tables: z
    .array(
      z.object({
        sheet: z.string().optional(),
        rows: z.number(),
        columnCount: z.number().optional(),
        columns: z.array(z.object({ name: z.string(), dtype: z.string() })),
        head: z.string(),
      }),
    )
    .optional(),
  text: z.string().optional(),
  error: z.string().optional(),
});

/** Most raw bytes one frame carries (sandbox/image/runner/protocol.py MAX_PAYLOAD_BYTES). */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * A chunk of a file read from the sandbox: `bytes` raw bytes follow the frame's newline (no base64); the connection
 * reads exactly that many and hands them over as `data`. The count is a claim, bounded here.
 */
const fileFrameSchema = z.object({
  type: z.literal('file'),
  id: z.string(),
  size: z.number().int().nonnegative(),
  eof: z.boolean(),
  bytes: z.number().int().nonnegative().max(MAX_PAYLOAD_BYTES),
});

/**
 * A piece of a streamed file (`stream_file`): `bytes` raw bytes follow the line, like a `file` frame's, and more
 * pieces or the request's final `file` frame come after it. A streaming frame: the request stays in flight.
 */
const chunkFrameSchema = z.object({
  type: z.literal('chunk'),
  id: z.string(),
  bytes: z.number().int().nonnegative().max(MAX_PAYLOAD_BYTES),
  /** What was sent so far is void and the file comes again from its start (a save that wrote its file anew). */
  reset: z.boolean().optional(),
});

export const frameSchema = z.discriminatedUnion('type', [
  readyFrameSchema,
  resultFrameSchema,
  stateFrameSchema,
  egressFrameSchema,
  z.object({ type: z.literal('stdout'), id: z.string().nullable(), text: z.string() }),
  z.object({ type: z.literal('stderr'), id: z.string().nullable(), text: z.string() }),
  z.object({ type: z.literal('display'), id: z.string().nullable() }).extend(displaySchema.shape),
  z.object({
    type: z.literal('ok'),
    id: z.string(),
    file: fileInfoSchema.optional(),
    /** How long a `recycle_kernel` took, in seconds. */
    seconds: z.number().nonnegative().optional(),
  }),
  fileFrameSchema,
  chunkFrameSchema,
  z.object({ type: z.literal('files'), id: z.string(), files: z.array(fileInfoSchema) }),
  z.object({ type: z.literal('previews'), id: z.string(), previews: z.array(previewSchema) }),
  z.object({ type: z.literal('error'), id: z.string().nullable(), code: z.string().optional(), message: z.string() }),
]);

/** A frame as the connection delivers it: a `file` or `chunk` frame with the raw bytes that followed it. */
export type Frame = Exclude<z.infer<typeof frameSchema>, { type: 'file' | 'chunk' }> | FileFrame | ChunkFrame;
export type FileFrame = z.infer<typeof fileFrameSchema> & { data: Buffer };
/** A piece of a `chunk` frame as the connection hands it on: one frame's bytes may come as several pieces. */
export type ChunkFrame = z.infer<typeof chunkFrameSchema> & { data: Buffer };
export type ReadyFrame = z.infer<typeof readyFrameSchema>;
export type ResultFrame = z.infer<typeof resultFrameSchema>;
export type StateFrame = z.infer<typeof stateFrameSchema>;
export type EgressFrame = z.infer<typeof egressFrameSchema>;
/** Frames that answer a request (as opposed to streaming frames). */
export type FinalFrame = Exclude<Frame, { type: 'ready' | 'stdout' | 'stderr' | 'display' | 'egress' }>;
export type StreamFrame = Extract<Frame, { type: 'stdout' | 'stderr' | 'display' | 'chunk' }>;

/** Out-of-band messages for the egress relay: the bot's side of a relayed connection. */
export interface EgressMessage {
  op: 'egress';
  event: 'data' | 'end' | 'close' | 'ack';
  conn: number;
  base64?: string;
  bytes?: number;
}

/** Requests the bot sends; `id` is added by the connection. */
export type RunnerRequest =
  | {
      op: 'run';
      language: Language;
      code: string;
      /** The bot's own run: the execution count does not advance. */
      internal?: boolean;
      timeoutMs: number;
      /** How long the kernel has to yield after an interrupt before the supervisor kills and replaces it. */
      graceMs: number;
      outputBytes: number;
      maxFileBytes: number;
      maxRunFilesBytes: number;
    }
  /** The file's bytes (at most {@link MAX_PAYLOAD_BYTES}) follow the request's line raw: `RunnerConnection.request`'s payload. */
  | {
      op: 'put_file';
      path: string;
      append: boolean;
      /** More chunks follow: the runner answers only the last, with the first failure if one failed. */
      more?: boolean;
    }
  /**
   * The whole file in `chunk` frames, one after another as the stream takes them, then a `file` frame (`eof`, no
   * bytes) with its size. A file larger than `maxBytes` is not sent: the `file` frame says its size. `remove`
   * deletes it once sent.
   */
  | { op: 'stream_file'; path: string; maxBytes: number; remove?: boolean }
  | { op: 'list_files' }
  | { op: 'delete_file'; path: string }
  | { op: 'preview'; paths: string[]; timeoutMs: number }
  | { op: 'ping' }
  | {
      op: 'save_state';
      /** THREADLAB_STATE_MAX_MB in bytes: the kernel stops writing past it. */
      maxBytes: number;
      /** The digest of the state the host holds: the same state again is not written. */
      previousDigest: string | null;
      timeoutMs: number;
      graceMs: number;
      /** Send the file in `chunk` frames while the kernel writes it, before the answer (and delete it after). */
      stream?: boolean;
    }
  | { op: 'restore_state'; timeoutMs: number; graceMs: number }
  /** Loads numpy, pandas and pyplot into the kernel (answered by a `state` frame with `loaded`). */
  | { op: 'warm'; timeoutMs: number; graceMs: number }
  /**
   * Replaces the idle Python kernel by a fresh one without the data stack or variables, in the same container
   * (sandbox/image/runner/kernel_recycle.py); answered `ok` once the new kernel is ready.
   */
  | { op: 'recycle_kernel' };

const FINAL_TYPES = new Set(['result', 'state', 'ok', 'file', 'files', 'previews', 'error']);

export function isFinalFrame(frame: Frame): frame is FinalFrame {
  return FINAL_TYPES.has(frame.type);
}
