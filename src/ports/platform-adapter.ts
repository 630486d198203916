import type { Readable } from 'node:stream';
import type { InboundAttachment, InboundCommand, InboundMessage, InboundUser } from '../domain/messages.js';
import type { ApprovalPress, ApprovalPressOutcome } from './approval.js';
import type { FeedbackClick, FeedbackOutcome } from '../domain/feedback.js';
import type { ProgressEvent } from '../domain/progress-event.js';
import type { Reply } from '../domain/reply.js';
import type { Platform, ThreadRef } from '../domain/thread-key.js';
import type { SourceSummary } from './data-sources.js';
import type { PlatformProfile } from './platform-profile.js';

/**
 * The core's one verdict on an inbound message: accepted (queued, or a command done at once), or refused.
 * The core never posts while deciding: the adapter gives the single answer, its platform's way.
 */
export type InboundOutcome =
  | {
      accepted: true;
      /** The thread command the core read the message as, if any (the web chat keeps it in its history). */
      command?: Exclude<InboundCommand['name'], 'run' | 'runMessage' | 'query'>;
      /** What to say in the thread now (a stop's "Stopped."); unset: the answer comes from the job. */
      answer?: string;
    }
  /** Refused by a limit: nothing was queued; `message` is said in the thread. */
  | { accepted: false; reason: 'rate_limited' | 'queue_full'; retryAfterMs: number; message: string }
  | InboundRefusal;

/**
 * Refused by the access allowlists (THREADLAB_ACCESS_*), or a Stop by someone who may not stop the run:
 * nothing ran. `message` is said privately where the platform allows; `tell` is false when this user was
 * already told in this place (the allowlists say it once per place), and then nothing is said.
 */
export type InboundRefusal = { accepted: false; reason: 'not_allowed'; message: string; tell: boolean };

/** Who pressed Stop (a button, or the platform's own stop), and where. */
export interface StopPress {
  threadKey: string;
  user: InboundUser;
}

/** What became of a Stop press: done (`stopped` says whether something was running), or refused. */
export type StopOutcome = { accepted: true; stopped: boolean } | InboundRefusal;

/** What an adapter hands the core. */
export interface InboundHandler {
  /** A message or command arrived. Resolves once it is accepted (queued), not when answered; posts nothing. */
  onMessage(message: InboundMessage): Promise<InboundOutcome | void>;
  /**
   * Someone pressed Stop in a thread: allowed to whoever started the running turn and the approval admins,
   * never to anyone the allowlists refuse. Posts nothing: the adapter tells a refused presser privately.
   */
  onCancel(threadKey: string, by: InboundUser): Promise<StopOutcome | void>;
  /**
   * The thread was deleted on its platform: its job is stopped and its sandbox session (container,
   * variables, files and their host copies) and memory are removed now, not when they expire.
   */
  onThreadDeleted?(threadKey: string): Promise<void>;
  /** Someone pressed Run or Skip under code waiting for approval; the outcome says what to tell them. */
  onApproval?(platform: Platform, press: ApprovalPress): Promise<ApprovalPressOutcome>;
  /**
   * Someone marked an answer of the model 👍 or 👎 (or sent a comment with it): recorded against the model the
   * answer ledger names, one verdict per person per answer. Posts nothing: the adapter acknowledges it.
   */
  onFeedback?(click: FeedbackClick): Promise<FeedbackOutcome>;
  /**
   * Whether the access allowlists let `message` in, asked by an adapter before a side effect of its own
   * (a thread it would create, a root message it would post). `message` is provisional: its thread is the
   * place the message came from. Nothing is said: a refusal carries its text and whether to tell it, and
   * the adapter tells it and does nothing more. `onMessage` checks again: it remains the authority.
   */
  admit?(message: InboundMessage, options?: AdmitOptions): Promise<Admission>;
  /**
   * The data sources (issue 38) a person may query in a thread: names, descriptions and limits, never a connection.
   * Empty when none are configured or allowed; unset where the core has no sources.
   */
  sourcesFor?(thread: ThreadRef, user: InboundUser): SourceSummary[];
}

export interface AdmitOptions {
  /**
   * The user typed a slash command and waits for an answer: a refusal is said every time, not once per
   * place. (A parsed command, `message.command`, counts as one anyway; a question typed after the
   * command's name has none.) @defaultValue false
   */
  slashCommand?: boolean;
}

/** What `InboundHandler.admit` decided. */
export type Admission = { allowed: true } | (Omit<InboundRefusal, 'accepted' | 'reason'> & { allowed: false });

/** A live status for one job in a thread; updates are throttled by the adapter as its platform needs. */
export interface ProgressSink {
  update(event: ProgressEvent): void;
  /** Removes or finalises the status; called once, after the reply was posted. */
  close(): Promise<void>;
}

/** An attachment being fetched: its bytes as a stream, so no upload is ever held whole in memory. */
export interface AttachmentDownload {
  /**
   * The bytes, read once. Fails with `attachment_rejected` as soon as more than the download's
   * `maxBytes` arrived, whatever size was declared. Destroy it to give up (the connection or file closes).
   */
  stream: Readable;
  /** The size the platform declared, when it did: a claim, checked again while streaming. */
  bytes?: number;
}

/** Where an answer landed on its platform: the ids of its messages, in order, to update it in place later. */
export interface PostedReply {
  /** Platform message ids (Slack ts, Discord message id, web message id); files posted apart are not listed. */
  messageIds: string[];
}

/**
 * A chat platform. `start` receives events (the gateway role); `download`, `progress` and `reply`
 * only use the platform's Web/REST API, so a worker on another machine can answer too.
 */
export interface PlatformAdapter {
  readonly platform: Platform;
  /** What the core needs to know of this platform: command names, limits (see PlatformProfile). */
  readonly profile: PlatformProfile;
  /** Largest file this platform accepts in one upload, in bytes. */
  readonly maxUploadBytes: number;
  /** Where people open this surface in a browser, for an adapter that serves one (read once it has started). */
  readonly url?: string;
  start(handler: InboundHandler): Promise<void>;
  stop(): Promise<void>;
  /**
   * Starts fetching an attachment. Rejects what is known to be unfit before the bytes flow (declared
   * over `maxBytes`, an error status, a misleading type); the stream enforces `maxBytes` while it flows.
   */
  download(
    attachment: InboundAttachment,
    options: { maxBytes: number; signal?: AbortSignal },
  ): Promise<AttachmentDownload>;
  progress(message: InboundMessage): ProgressSink;
  /** Posts the answer to `message`; adapters that can update answers later say where it landed. */
  reply(message: InboundMessage, reply: Reply): Promise<PostedReply | void>;
  /**
   * Replaces an earlier answer (`previous`) with `reply`, in place: its messages are edited, surplus ones
   * removed, extra ones added after them; what each platform does with files is in its README. Optional:
   * without it, the answer to an edit is posted anew.
   */
  updateReply?(message: InboundMessage, previous: PostedReply, reply: Reply): Promise<PostedReply>;
}
