import type { AuditLine } from './audit-record.js';

type Files = { name: string; bytes: number }[] | undefined;

const files = (list: Files, more: unknown): string =>
  (list ?? []).map((f) => `${f.name} (${f.bytes} B)`).join(', ') + (Number(more) > 0 ? ` +${Number(more)} more` : '');

/** One audit line as a line of text for `threadlab audit` (without --json). */
export function auditLineText(line: AuditLine): string {
  const l = line as AuditLine & Record<string, never>;
  const who = `${line.user ?? '-'}${line.pseudonym ? ' (pseudonym)' : ''}`;
  const where = line.thread ?? `#${line.threadHash}`;
  const head = `${line.ts}  ${line.kind.padEnd(10)}  ${who}  ${where}`;
  const tokens = (t: { prompt: number; completion: number } | null | undefined) =>
    t ? `tokens ${t.prompt}+${t.completion}` : '';
  switch (line.kind) {
    case 'run': {
      const parts = [
        `${String(l.origin)} ${String(l.language)} ${String(l.status)} ${String(l.durationMs)} ms`,
        `code ${String(l.codeSha256).slice(0, 12)} (${String(l.codeBytes)} B)`,
        tokens(l.tokens as never),
        (l.filesIn as Files)?.length ? `in: ${files(l.filesIn as Files, l.filesInMore)}` : '',
        (l.filesOut as Files)?.length ? `out: ${files(l.filesOut as Files, l.filesOutMore)}` : '',
      ];
      return `${head}  ${parts.filter(Boolean).join('  ')}`;
    }
    case 'model_call':
      return `${head}  ${String(l.model)} ${String(l.status)} ${String(l.durationMs)} ms  ${tokens(l.tokens as never)}  tool calls ${String(l.toolCalls)}`;
    case 'egress':
      return `${head}  ${String(l.destination)} ${String(l.verdict)} up ${String(l.bytesUp)} B down ${String(l.bytesDown)} B${l.reason ? ` (${String(l.reason)})` : ''}`;
    case 'approval': {
      const by = l.by === 'admin' ? `by admin ${String(l.admin)}` : l.by === 'asker' ? 'by the asker' : '';
      const decided = `${String(l.decision)}${by ? ` ${by}` : ''} after ${String(l.waitedMs)} ms`;
      return `${head}  ${decided}  ${String(l.language)} code ${String(l.codeSha256).slice(0, 12)} (${String(l.codeBytes)} B)`;
    }
    default:
      return `${head}  ${JSON.stringify(line)}`;
  }
}
