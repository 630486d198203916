import type { AuditLine } from './audit-record.js';

type Files = { name: string; bytes: number }[] | undefined;

const files = (list: Files, more: unknown): string =>
  (list ?? []).map((f) => `${f.name} (${f.bytes} B)`).join(', ') + (Number(more) > 0 ? ` +${Number(more)} more` : '');

/** An answer line's figure counts: "figures 6 checked, 1 not found, 2 unchecked, verification round". */
function figures(l: Record<string, unknown>): string {
  if (l.figuresChecked === null || l.figuresChecked === undefined) return 'figures not checked';
  const parts = [`figures ${String(l.figuresChecked)} checked`, `${String(l.figuresNotFound)} not found`];
  if (Number(l.figuresUnchecked) > 0) parts.push(`${String(l.figuresUnchecked)} unchecked`);
  if (l.verificationRound === true) parts.push('verification round');
  return parts.join(', ');
}

/**
 * Every control character (C0, DEL, C1) and the Unicode line and bidi controls, written as a visible escape:
 * fields such as an egress request line or a file name are chosen by sandboxed code, and ESC, BS or CR on a
 * terminal would erase or forge lines of the trail.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The text with those characters escaped, and a backslash doubled so that an escape cannot be forged either. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => {
    if (c === '\\') return '\\\\';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** One audit line as a line of text for `threadlab audit` (without --json), with control characters escaped. */
export function auditLineText(line: AuditLine): string {
  return escapeControls(lineText(line));
}

function lineText(line: AuditLine): string {
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
    case 'answer':
      return `${head}  ${String(l.model ?? '-')} ${String(l.outcome)} ${String(l.durationMs)} ms  runs ${String(l.runs)}  ${tokens(l.tokens as never)}  ${figures(l)}`;
    case 'schedule': {
      const failures =
        l.failuresInRow === null || l.failuresInRow === undefined
          ? ''
          : `  failures in a row ${String(l.failuresInRow)}`;
      return `${head}  ${String(l.task)} ${String(l.outcome)}  schedule ${String(l.schedule)}  job ${String(l.job ?? '-')}${failures}`;
    }
    case 'feedback': {
      const changed = l.previous ? ` (was ${String(l.previous)})` : '';
      const comment = typeof l.comment === 'string' ? `  comment ${JSON.stringify(l.comment)}` : '';
      return `${head}  ${String(l.verdict)}${changed}  ${String(l.model)}  answer ${String(l.answer)}${comment}`;
    }
    case 'query': {
      const cut = l.cut ? `  cut at the ${String(l.cut)} cap` : '';
      const sql = JSON.stringify(String(l.sql).replace(/\s+/g, ' ').slice(0, 200));
      return `${head}  ${String(l.source)} ${String(l.outcome)} ${String(l.durationMs)} ms  rows ${String(l.rows)} (${String(l.bytes)} B)${cut}  sql ${sql}`;
    }
    default:
      return `${head}  ${JSON.stringify(line)}`;
  }
}
