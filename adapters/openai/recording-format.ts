import { z } from 'zod';

/**
 * The format of a model-exchange recording (`THREADLAB_LLM_RECORD`, read back by `threadlab replay`): JSONL, one
 * turn per file. The first line is the header; then, per HTTP exchange in the order it happened, a `request`
 * line and its `response` (or `network_error`) line; a `truncated` line ends a file that reached its size cap.
 * Everything read back is untrusted (a user sends the file): each line is checked against these schemas.
 */

/** The `type` of a recording's first line: what tells a recording from any other JSONL file. */
export const RECORDING_TYPE = 'threadlab-llm-recording';
export const RECORDING_VERSION = 1;

/** Longest line a writer produces and a reader accepts, in characters. */
export const MAX_LINE_CHARS = 32 * 1024 * 1024;
/** Most exchanges a reader accepts in one recording (a turn makes at most 100 rounds, each retried a few times). */
export const MAX_EXCHANGES = 2000;

const text = (max: number) => z.string().max(max);
const headers = z.record(text(200), text(8192)).refine((h) => Object.keys(h).length <= 200, 'at most 200 headers');

/** The model settings of the recorded turn, which the replay uses so the same requests can come out. */
export const recordedSettingsSchema = z.object({
  model: text(500),
  stream: z.boolean(),
  tools: z.enum(['auto', 'native', 'text']),
  images: z.boolean(),
  temperature: z.number().min(0).max(2).optional(),
  maxRounds: z.number().int().min(1).max(100),
  tokenBudget: z.number().int().min(1000),
  maxRetries: z.number().int().min(0).max(10),
  dialect: text(500).optional(),
  verifyFigures: z.enum(['off', 'mark', 'ask']),
  memoryTokens: z.number().int().min(500),
});
export type RecordedSettings = z.infer<typeof recordedSettingsSchema>;

export const headerLineSchema = z.object({
  type: z.literal(RECORDING_TYPE),
  version: z.literal(RECORDING_VERSION),
  /** ISO time of the turn's first request. */
  recordedAt: text(40),
  thread: text(1000).nullable(),
  job: text(200).nullable(),
  /** The endpoint as it may be shown (credentials redacted). */
  endpoint: text(2000),
  settings: recordedSettingsSchema,
  /** Whether file contents (previews, images) were kept (THREADLAB_LLM_RECORD_FILES). */
  files: z.boolean(),
});
export type HeaderLine = z.infer<typeof headerLineSchema>;

export const requestLineSchema = z.object({
  type: z.literal('request'),
  seq: z.number().int().min(1).max(MAX_EXCHANGES),
  /** ms since the turn's first request. */
  atMs: z.number().min(0),
  method: text(16),
  /** Path and query, credentials redacted. */
  url: text(8192),
  headers,
  /** The JSON body as sent (file contents left out unless kept), or a note saying what was left out. */
  body: z.unknown(),
});
export type RequestLine = z.infer<typeof requestLineSchema>;

export const responseLineSchema = z.object({
  type: z.literal('response'),
  seq: z.number().int().min(1).max(MAX_EXCHANGES),
  /** ms from the request to the response's end. */
  durationMs: z.number().min(0),
  status: z.number().int().min(100).max(599),
  headers,
  /** A whole body, as the server sent it. */
  body: z.string().optional(),
  /** A streamed body (`text/event-stream`): each event's text, without the blank line that ended it. */
  events: z.array(z.string()).max(1_000_000).optional(),
  /** How the body ended: read to its end, cancelled by the client (a Stop), or failed midway. */
  end: z.enum(['complete', 'cancelled', 'failed']),
});
export type ResponseLine = z.infer<typeof responseLineSchema>;

export const networkErrorLineSchema = z.object({
  type: z.literal('network_error'),
  seq: z.number().int().min(1).max(MAX_EXCHANGES),
  message: text(2000),
});
export type NetworkErrorLine = z.infer<typeof networkErrorLineSchema>;

export const truncatedLineSchema = z.object({
  type: z.literal('truncated'),
  maxBytes: z.number().int().min(0),
  message: text(1000),
});
export type TruncatedLine = z.infer<typeof truncatedLineSchema>;

/** Any line after the header. */
export const exchangeLineSchema = z.discriminatedUnion('type', [
  requestLineSchema,
  responseLineSchema,
  networkErrorLineSchema,
  truncatedLineSchema,
]);
export type ExchangeLine = z.infer<typeof exchangeLineSchema>;
