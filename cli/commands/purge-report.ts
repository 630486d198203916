import type { AuditRewrite } from '../../src/governance/retention/retention-audit.js';
import type { PurgeReport } from '../../src/governance/retention/retention.js';
import type { PurgedItem } from '../../src/ports/retention-source.js';

function describe(item: PurgedItem): string {
  const parts: string[] = [];
  if (item.files !== undefined) parts.push(`${item.files} file(s)`);
  if (item.bytes !== undefined) parts.push(`${item.bytes} bytes`);
  if (item.note) parts.push(item.note);
  return `  ${item.what.padEnd(12)} ${item.thread}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** The text `threadlab purge` prints: what was removed, what was left and why, what failed. */
export function formatPurgeReport(
  report: PurgeReport,
  audit: (AuditRewrite & { files?: string[] }) | undefined,
  notes: string[],
): string {
  const lines: string[] = [];
  if (report.removed.length === 0) lines.push('Nothing to remove.');
  else {
    const threads = new Set(report.removed.map((i) => i.thread));
    lines.push(`Removed (${threads.size} thread(s)):`, ...report.removed.map(describe));
  }
  for (const s of report.shared)
    lines.push(`Kept ${s.key}: ${s.others} other user(s) wrote in it too; purge it with --thread if it must go.`);
  if (audit) {
    const files = audit.files ? ` in ${audit.files.length ? audit.files.join(', ') : 'no file (none exists yet)'}` : '';
    if (audit.pseudonym)
      lines.push(
        audit.pseudonymised > 0
          ? `Audit trail${files}: ${audit.pseudonymised} line(s) now name the user as ${audit.pseudonym}.`
          : `Audit trail${files}: no line named the user.`,
      );
    const erased = audit.fileNamesErased ?? 0;
    if (erased > 0 || !audit.pseudonym)
      lines.push(
        erased > 0
          ? `Audit trail${files}: ${erased} line(s) of the purged threads now name their files by pseudonyms.`
          : `Audit trail${files}: no line named a file of the purged threads.`,
      );
  }
  for (const f of report.failures) lines.push(`FAILED ${f.source}${f.thread ? ` for ${f.thread}` : ''}: ${f.error}`);
  lines.push(...notes);
  return `${lines.join('\n')}\n`;
}
