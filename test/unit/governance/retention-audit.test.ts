import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { threadHash } from '../../../src/governance/audit/audit-record.js';
import { rewriteAuditFile } from '../../../src/governance/retention/retention-audit.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'threadlab-audit-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const line = (user: string, ts: string) => ({
  v: 1,
  ts,
  user,
  platform: 'slack',
  workspace: 'T1',
  channel: 'C1',
  thread: 'slack:T1:C1:1.1',
  threadHash: threadHash('slack:T1:C1:1.1'),
  job: 'j1',
  kind: 'run',
  codeSha256: 'ab'.repeat(32),
  status: 'ok',
});

it("replaces only the purged user's identity, keeping every other field and line", async () => {
  const file = join(dir, 'audit.log');
  const now = new Date().toISOString();
  const lines = [line('U1', now), line('U2', now), line('U1', now)];
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\nnot json\n`);

  const result = await rewriteAuditFile(file, { user: 'U1' });

  const after = readFileSync(file, 'utf8').split('\n');
  expect(result.pseudonymised).toBe(2);
  expect(result.pseudonym).toMatch(/^erased-[0-9a-f]{16}$/);
  expect(after).toHaveLength(5);
  expect(JSON.parse(after[0]!)).toEqual({ ...lines[0], user: result.pseudonym, pseudonym: true });
  expect(JSON.parse(after[1]!)).toEqual(lines[1]);
  expect(JSON.parse(after[2]!)).toEqual({ ...lines[2], user: result.pseudonym, pseudonym: true });
  expect(after[3]).toBe('not json');
  expect(readFileSync(file, 'utf8')).not.toContain('"U1"');
  // A second erasure of another user picks another pseudonym: the two cannot be linked.
  const second = await rewriteAuditFile(file, { user: 'U2' });
  expect(second.pseudonym).not.toBe(result.pseudonym);
});

it('drops lines older than the cutoff (audit retention) and keeps newer ones', async () => {
  const file = join(dir, 'audit.log');
  const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
  const fresh = new Date().toISOString();
  writeFileSync(file, `${JSON.stringify(line('U1', old))}\n${JSON.stringify(line('U2', fresh))}\n`);
  const result = await rewriteAuditFile(file, { dropBeforeMs: Date.now() - 30 * 86_400_000 });
  expect(result).toEqual({ pseudonymised: 0, dropped: 1 });
  expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(line('U2', fresh))}\n`);
});

it('a missing or empty audit file is left alone', async () => {
  expect(await rewriteAuditFile(join(dir, 'none.log'), { user: 'U1' })).toEqual({ pseudonymised: 0, dropped: 0 });
});

it('erasing an admin replaces their id where they decided an approval, and nowhere else', async () => {
  const file = join(dir, 'audit.log');
  const now = new Date().toISOString();
  const approval = (user: string, admin: string | null) => ({
    ...line(user, now),
    kind: 'approval',
    decision: 'run',
    by: admin ? 'admin' : 'asker',
    admin,
    waitedMs: 1200,
    language: 'python',
    codeBytes: 8,
    approvalId: '0f0e0d0c-0b0a-4908-8706-050403020100',
  });
  const lines = [approval('U1', 'U_ADMIN'), approval('U_ADMIN', null), approval('U2', null)];
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);

  const result = await rewriteAuditFile(file, { user: 'U_ADMIN' });

  const after = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(result.pseudonymised).toBe(2);
  expect(after[0]).toEqual({ ...lines[0], admin: result.pseudonym, pseudonym: true });
  expect(after[1]).toEqual({ ...lines[1], user: result.pseudonym, pseudonym: true });
  expect(after[2]).toEqual(lines[2]);
  expect(readFileSync(file, 'utf8')).not.toContain('U_ADMIN');
});

it('erasing a user pseudonymises their answer lines like any other, the counts kept; --thread leaves them be', async () => {
  const file = join(dir, 'audit.log');
  const now = new Date().toISOString();
  const answer = (user: string) => ({
    ...line(user, now),
    kind: 'answer',
    outcome: 'answer',
    model: 'gpt-x',
    runs: 2,
    tokens: { prompt: 10, completion: 2 },
    durationMs: 900,
    figuresChecked: 6,
    figuresNotFound: 1,
    figuresUnchecked: 0,
    verificationRound: true,
  });
  const lines = [answer('U1'), answer('U2')];
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);

  const result = await rewriteAuditFile(file, { user: 'U1', threadHashes: new Set([threadHash('slack:T1:C1:1.1')]) });

  const after = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(result.pseudonymised).toBe(1);
  expect(after[0]).toEqual({ ...lines[0], user: result.pseudonym, pseudonym: true });
  // An answer line names no file: a purged thread's pseudonyms for file names do not touch it.
  expect(after[1]).toEqual(lines[1]);
  expect(readFileSync(file, 'utf8')).not.toContain('"U1"');
});
