import type { Language } from './execution.js';
import type { ThreadRef } from './thread-key.js';

/**
 * A file attached to an inbound message. Only its description travels (through a queue, too);
 * the bytes are fetched by the platform adapter's `download` when the job runs.
 */
export interface InboundAttachment {
  /** Platform id of the file (Slack file id, Discord attachment id). */
  id: string;
  name: string;
  mime?: string;
  /** Size the platform declared, checked again while downloading. */
  bytes?: number;
  /** Where the adapter fetches the file from; meaningful to that adapter only. */
  url?: string;
  /** Small files posted to the web chat or CLI travel inline, base64. */
  inlineBase64?: string;
}

/** A slash command or its equivalent, parsed by the adapter. */
export type InboundCommand =
  | { name: 'run'; language: Language; code: string }
  /**
   * A run command whose code is an SQL query (`sqlRunOf`: one sql block, or a first line `-- source: NAME`): it runs
   * on the data source like a message that is one sql block. `body` is the block's, `info` what followed its tag.
   */
  | { name: 'query'; body: string; info: string }
  | { name: 'reset' }
  | { name: 'files' }
  | { name: 'help' }
  | { name: 'export' }
  /** Today's spend and what is left of the daily budgets. */
  | { name: 'usage' }
  | { name: 'stop' }
  /**
   * Run what another message holds (a platform's "run this message" action, or `run` sent as a reply to it): its
   * fenced blocks, read from `text` (the message's text as its author wrote it), else its attached script (the
   * message's attachments are this message's). Who asked is the message's `user`; `source` says whose it was.
   */
  | { name: 'runMessage'; text: string }
  /** Scheduled reports: `text` is what follows the command (`every day 09:00 …`, `list`, `cancel 2`), parsed by the core. */
  | { name: 'schedule'; text: string };

/** The message a `runMessage` command runs: who wrote it, so their code is never taken as the invoker's. */
export interface MessageSource {
  /** The platform's id of the message whose code runs. */
  messageId: string;
  /** Its author's platform user id; `null` when the platform did not say (a bot's or a webhook's message). */
  authorId: string | null;
}

/**
 * Says that a message is an edit of an earlier one: the core runs it again and updates (or re-posts)
 * the answer to `originalId`, if the bot answered that message for the same user.
 */
export interface InboundEdit {
  /** The `id` the edited message had when it first arrived (the answered question). */
  originalId: string;
  /** The text before this edit, when the platform said it (a claim: the core compares with what it answered). */
  previousText?: string;
}

/** Who sent a message or pressed a button, as the platform said. */
export interface InboundUser {
  id: string;
  name?: string;
  isBot?: boolean;
  /** Role ids the platform sent with the message (Discord's member roles); checked by the access allowlists. */
  roles?: string[];
  /** The user's own time zone (an IANA name), where the platform says it (Slack's `users.info` `tz`). */
  timeZone?: string;
}

/** One message for the core, the same for every platform. Plain data: it crosses a queue. */
export interface InboundMessage {
  /** Platform event id; the same event delivered twice carries the same id and runs once. */
  id: string;
  thread: ThreadRef;
  user: InboundUser;
  /** The text with the bot mention removed. */
  text: string;
  attachments: InboundAttachment[];
  /** A native command (a slash command), or a thread command typed as the text, read by the adapter. */
  command?: InboundCommand;
  /**
   * Set when `command` was typed as the message's text (`reset` in a thread) rather than given as a native
   * command the user waits an answer to. @defaultValue false
   */
  commandTyped?: boolean;
  /** Epoch milliseconds when the platform received it. */
  receivedAtMs: number;
  /**
   * Adapter-specific data needed to answer (a Discord interaction token, a Slack response_url,
   * the message to reply under). Opaque to the core; plain JSON.
   */
  replyContext?: Record<string, string | number | boolean | null>;
  /** Set when this is an edit of an earlier message; `id` is then the edit's own (unique per edit). */
  edit?: InboundEdit;
  /**
   * Set when the code this message runs is another message's (`runMessage`): `user` is who asked, and whose access,
   * direct-mode rights, budget and audit line apply; the source's author is only recorded.
   */
  source?: MessageSource;
  /**
   * One line saying what the user is looking at on the platform (Slack's app context: "The user is looking at
   * #sales in Slack."), offered to the model with the question. Only ever a name the adapter may show them.
   */
  viewing?: string;
}

/**
 * A Stop press as a message of its thread: what the access allowlists read (who, where) and where a private
 * notice to the presser goes. It carries the stop command, so a refusal is said every time.
 */
export function pressMessage(thread: ThreadRef, user: InboundUser, receivedAtMs = Date.now()): InboundMessage {
  return {
    id: `press:${thread.platform}:${user.id}:${receivedAtMs}`,
    thread,
    user,
    text: '',
    attachments: [],
    command: { name: 'stop' },
    receivedAtMs,
  };
}
