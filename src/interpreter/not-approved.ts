import type { ApprovalDecision } from '../ports/approval.js';

/** What the model is told instead of a result when its code did not run for want of approval. */
export function notApprovedText(decision: Exclude<ApprovalDecision, { kind: 'run' }>): string {
  const what =
    decision.kind === 'skip'
      ? 'The user chose Skip'
      : decision.kind === 'timeout'
        ? `Nobody approved it within ${Math.round(decision.waitedMs / 1000)} s`
        : `Approval was required but ${decision.reason}`;
  return `[Threadlab] This code did NOT run: ${what}. Do not run it again unasked: answer with what you have, or ask the user how to go on.`;
}
