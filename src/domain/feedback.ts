import type { InboundMessage, InboundUser } from './messages.js';

/** A reader's verdict on one answer of the model: 👍 (`good`) or 👎 (`bad`). */
export type FeedbackVerdict = 'good' | 'bad';

/** The verdicts, as controls and the audit trail name them. */
export const FEEDBACK_VERDICTS: readonly FeedbackVerdict[] = ['good', 'bad'];

/** Longest comment kept with a verdict, in characters; a longer one is cut and ends with `…`. */
export const FEEDBACK_COMMENT_MAX_CHARS = 500;

/** Longest answer reference a control may carry (a message id, a Slack ts, an event id), in characters. */
export const FEEDBACK_REF_MAX_CHARS = 200;

/** A click on an answer's 👍 or 👎 (or a comment sent after one), as an adapter hands it to the core. */
export interface FeedbackClick {
  /** The thread the answer is in, as its adapter keys it. */
  threadKey: string;
  /**
   * Which answer: the id of one of its platform messages, or the id of the message it answered
   * ({@link answerRefOf}). Matched against the answer ledger; never trusted for anything else.
   */
  answerRef: string;
  user: InboundUser;
  verdict: FeedbackVerdict;
  /** A short comment (the web chat's field, Discord's modal after 👎), already trimmed; absent without one. */
  comment?: string;
}

/** What became of a click: recorded (perhaps changing the person's earlier verdict), or refused with why. */
export type FeedbackOutcome =
  | {
      recorded: true;
      /** The person's earlier verdict on this answer, when this click changed or repeated it. */
      previous?: FeedbackVerdict;
      /** The model that wrote the answer, as the answer ledger recorded it. */
      model: string;
    }
  | { recorded: false; reason: 'unknown_answer' | 'not_allowed' | 'unavailable'; message: string };

/** The reference a surface puts on an answer's controls: the id of the message it answered, as the ledger keys it. */
export function answerRefOf(message: InboundMessage): string {
  return message.edit?.originalId ?? message.id;
}

/** A comment as it is kept: trimmed, control characters made spaces, at most {@link FEEDBACK_COMMENT_MAX_CHARS}. */
export function boundComment(text: string | undefined): string | undefined {
  // eslint-disable-next-line no-control-regex -- a comment is one line of the audit trail's text output
  const clean = (text ?? '').replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  if (clean === '') return undefined;
  return clean.length <= FEEDBACK_COMMENT_MAX_CHARS ? clean : `${clean.slice(0, FEEDBACK_COMMENT_MAX_CHARS - 1)}…`;
}
