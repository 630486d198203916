import { describe, expect, it } from 'vitest';
import type { AnswerFigures } from '../../../src/domain/figures.js';
import { answerRecord } from '../../../src/governance/audit/audit-answer.js';
import { withAuditScope } from '../../../src/governance/audit/audit-scope.js';
import { auditLineText } from '../../../src/governance/audit/audit-text.js';
import {
  AUDIT_MAX_FILES,
  AUDIT_MAX_STRING_CHARS,
  boundFiles,
  boundString,
  AUDIT_KINDS,
  formatAuditLine,
  parseAuditLine,
  threadHash,
  type AuditRunRecord,
} from '../../../src/governance/audit/audit-record.js';

const run: AuditRunRecord = {
  v: 1,
  ts: '2025-01-02T03:04:05.678Z',
  kind: 'run',
  user: 'U1',
  platform: 'slack',
  workspace: 'T1',
  channel: 'C1',
  thread: 'slack:T1:C1:1.2',
  threadHash: threadHash('slack:T1:C1:1.2'),
  job: 'j1',
  origin: 'user',
  language: 'python',
  codeSha256: 'ab',
  codeBytes: 2,
  status: 'ok',
  durationMs: 3,
  tokens: null,
  filesIn: [],
  filesInMore: 0,
  filesOut: [{ name: 'out.csv', bytes: 10 }],
  filesOutMore: 0,
};

describe('audit line format', () => {
  it('is one JSON object per line and reads back with its fields', () => {
    const line = formatAuditLine(run);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(parseAuditLine(line)).toEqual(run);
  });

  it('keeps fields it does not know and rejects lines that are not v1 records', () => {
    expect(parseAuditLine(JSON.stringify({ ...run, later: 1 }))?.later).toBe(1);
    expect(parseAuditLine('not json')).toBeUndefined();
    expect(parseAuditLine(JSON.stringify({ ...run, v: 2 }))).toBeUndefined();
    expect(parseAuditLine(JSON.stringify({ msg: 'a pino line' }))).toBeUndefined();
  });

  it('hashes thread keys like the sandbox names their directories (sha256, 24 hex)', () => {
    expect(threadHash('cli:local:cli:a')).toMatch(/^[0-9a-f]{24}$/);
    expect(threadHash('cli:local:cli:a')).not.toBe(threadHash('cli:local:cli:b'));
  });

  it('bounds strings and file lists, counting what it left out', () => {
    expect(boundString('x'.repeat(5000))).toHaveLength(AUDIT_MAX_STRING_CHARS);
    const many = Array.from({ length: AUDIT_MAX_FILES + 7 }, (_, i) => ({ name: `f${i}`, bytes: i }));
    const bounded = boundFiles(many);
    expect(bounded.files).toHaveLength(AUDIT_MAX_FILES);
    expect(bounded.more).toBe(7);
  });

  describe('the answer line of a model turn', () => {
    const figures: AnswerFigures = {
      checked: 6,
      notFound: 1,
      notFoundTexts: ['12.4 %'],
      unchecked: 2,
      line: '⚠ 1 figure not found in any output: 12.4 %',
      marks: [{ start: 10, end: 14, text: '12.4', found: false, title: 'not found in any output' }],
      verificationRound: true,
    };
    const turn = {
      threadKey: 'slack:T1:C1:1.2',
      userId: 'U7',
      outcome: 'answer' as const,
      model: 'gpt-x',
      runs: 3,
      usage: { promptTokens: 1200, completionTokens: 80 },
      durationMs: 4321,
    };

    it('carries the outcome, spend and figure counts, and no figure or answer text', () => {
      const record = withAuditScope({ user: 'U7', thread: turn.threadKey, job: 'j9' }, () =>
        answerRecord({ ...turn, figures }),
      );
      expect(record).toEqual({
        v: 1,
        ts: expect.any(String),
        user: 'U7',
        platform: 'slack',
        workspace: 'T1',
        channel: 'C1',
        thread: 'slack:T1:C1:1.2',
        threadHash: threadHash('slack:T1:C1:1.2'),
        job: 'j9',
        kind: 'answer',
        outcome: 'answer',
        model: 'gpt-x',
        runs: 3,
        tokens: { prompt: 1200, completion: 80 },
        durationMs: 4321,
        figuresChecked: 6,
        figuresNotFound: 1,
        figuresUnchecked: 2,
        verificationRound: true,
      });
      expect(formatAuditLine(record)).not.toContain('12.4');
      expect(parseAuditLine(formatAuditLine(record))).toEqual(record);
      expect(AUDIT_KINDS).toContain('answer');
    });

    it('has null counts when the answer was not checked, and reads as one line of text either way', () => {
      const unchecked = answerRecord({ ...turn, outcome: 'budget', model: undefined });
      expect(unchecked).toMatchObject({
        user: 'U7',
        job: null,
        outcome: 'budget',
        model: null,
        figuresChecked: null,
        figuresNotFound: null,
        figuresUnchecked: null,
        verificationRound: false,
      });
      const text = (r: typeof unchecked) => auditLineText(parseAuditLine(formatAuditLine(r))!);
      expect(text(unchecked)).toMatch(
        /^\S+ {2}answer {6}U7 {2}slack:T1:C1:1\.2 {2}- budget 4321 ms {2}runs 3 {2}tokens 1200\+80 {2}figures not checked$/,
      );
      expect(text(answerRecord({ ...turn, figures }))).toMatch(
        / {2}gpt-x answer 4321 ms {2}runs 3 {2}tokens 1200\+80 {2}figures 6 checked, 1 not found, 2 unchecked, verification round$/,
      );
      // A model name is configuration, but the text view escapes whatever a line holds.
      expect(text(answerRecord({ ...turn, model: 'gpt\u001b[2Kx' }))).toContain(' gpt\\x1b[2Kx answer ');
    });
  });
});
