import { describe, expect, it } from 'vitest';
import {
  AUDIT_MAX_FILES,
  AUDIT_MAX_STRING_CHARS,
  boundFiles,
  boundString,
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
});
