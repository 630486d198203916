import type { AnswerFigures } from '../../src/domain/figures.js';
import type { OmittedFile, ReplyFooter, RunRecord } from '../../src/domain/reply.js';

/** A thread of the web chat, as the API returns it. */
export interface WebThread {
  id: string;
  title: string;
  createdAtMs: number;
  updatedAtMs: number;
}

/** A file the user uploaded into a thread, readable at `url`. */
export interface WebAttachment {
  id: string;
  name: string;
  mime: string;
  bytes: number;
  url: string;
}

/** An image of a reply, served at `url`. */
export interface WebImage {
  id: string;
  name: string;
  mime: string;
  alt: string;
  width?: number;
  height?: number;
  bytes: number;
  url: string;
  /** Shown inside the answer's text, where the model linked it, rather than under it. */
  inline?: boolean;
}

/** A generated file of a reply, served at `url` (always as a download). */
export interface WebFile {
  id: string;
  name: string;
  mime: string;
  bytes: number;
  description?: string;
  url: string;
}

/** One stored message of a thread: what the user sent or what Threadlab answered. */
export interface WebMessage {
  id: string;
  threadId: string;
  role: 'user' | 'bot';
  createdAtMs: number;
  text: string;
  /** Only for bot messages: how to style it. */
  kind?: 'answer' | 'notice' | 'error';
  attachments?: WebAttachment[];
  images?: WebImage[];
  files?: WebFile[];
  runs?: RunRecord[];
  omitted?: OmittedFile[];
  /** DataFrames the runs displayed, drawn as tables by the page. */
  tables?: WebTable[];
  footer?: ReplyFooter;
  /** An answer of the model: the page shows 👍/👎 under it (POST …/messages/:id/feedback). */
  feedback?: true;
  /**
   * The answer's figures checked against the runs' output: the page shows `line` and marks each figure of
   * `marks` (UTF-16 offsets into `text`) with where it was found. Only when the answer states a figure.
   */
  figures?: AnswerFigures;
  /** The model's thinking, shown folded away above the answer. */
  thinking?: string;
  /** Set when this is a revision of the message with the same id (an edited message, a re-run's answer). */
  revisedAtMs?: number;
  /** Set on user messages that carried a command (`reset`, `stop`…). */
  command?: string;
}

/** A table for the page: the first rows the sandbox sent, the whole table's size and a caption saying the rest. */
export interface WebTable {
  columns: string[];
  numeric: boolean[];
  rows: string[][];
  totalRows: number;
  totalColumns: number;
  caption: string;
  /** The attached CSV with every row, when the table is cut. */
  csv?: { name: string; url: string };
}

/** Metadata kept beside every stored blob (upload or reply file). */
export interface BlobMeta {
  id: string;
  threadId: string;
  name: string;
  mime: string;
  bytes: number;
  createdAtMs: number;
}
