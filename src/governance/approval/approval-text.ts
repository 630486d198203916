import type { ApprovalDecision } from '../../ports/approval.js';

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

/** One line for the platform message once the buttons are gone; `mention` formats a user id. */
export function settledLine(decision: ApprovalDecision, mention: (userId: string) => string): string {
  switch (decision.kind) {
    case 'run':
      return `✅ Run approved by ${mention(decision.by)}.`;
    case 'skip':
      return decision.by
        ? `⏭️ Skipped by ${mention(decision.by)}: the code did not run.`
        : '⏹️ Stopped: the code did not run.';
    case 'timeout':
      return `⌛ No answer within ${Math.round(decision.waitedMs / 1000)} s: the code did not run.`;
    case 'unavailable':
      return `⚠️ The code did not run: ${decision.reason}.`;
  }
}
