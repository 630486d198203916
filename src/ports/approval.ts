import type { Language } from '../domain/execution.js';

/** What a person approves: code in a sandbox language, or SQL for a data source (its first line names the source). */
export type ApprovalLanguage = Language | 'sql';

/** Code the model wants to run, shown to people before it runs. */
export interface ApprovalView {
  /** Opaque id of this request; buttons carry it back. */
  approvalId: string;
  language: ApprovalLanguage;
  code: string;
  /** The user who asked (the one who may decide, with the admins). */
  askerId: string;
  /** How long the buttons stay live, in ms. */
  timeoutMs: number;
}

/** How an approval request ended. */
export type ApprovalDecision =
  | { kind: 'run'; by: string }
  | { kind: 'skip'; by: string }
  | { kind: 'timeout'; waitedMs: number }
  /** The surface cannot show buttons, or showing them failed: nothing runs (fail closed). */
  | { kind: 'unavailable'; reason: string };

/** What the prompt on the platform becomes once decided. */
export type ApprovalSettled = ApprovalDecision;

/** The platform message with the Run and Skip buttons; `settle` replaces the buttons with the outcome. */
export interface ApprovalPrompt {
  settle(outcome: ApprovalSettled): Promise<void>;
}

/** A button press, as an adapter hands it to the core. Every field is a claim from the platform. */
export interface ApprovalPress {
  approvalId: string;
  action: 'run' | 'skip';
  /** Who pressed (platform user id, as the platform authenticated it). */
  userId: string;
}

/** What the core made of a press; `message` is for the presser (privately where the platform allows). */
export type ApprovalPressOutcome =
  | { ok: true; decision: 'run' | 'skip' }
  | { ok: false; reason: 'not_allowed' | 'unknown' | 'unavailable'; message: string };

/**
 * Asked by the interpreter loop before it runs code the model wrote: resolves once the code may run
 * (`run`) or must not (anything else). Never throws for a refusal or a timeout; an abort of `signal`
 * rejects with the signal's reason.
 */
export type ApprovalHook = (request: {
  language: ApprovalLanguage;
  code: string;
  signal: AbortSignal;
}) => Promise<ApprovalDecision>;
