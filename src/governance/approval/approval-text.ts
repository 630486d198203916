import type { ApprovalDecision } from '../../ports/approval.js';

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
