import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FileAuditLog } from '../../../src/governance/audit/audit-file.js';
import { threadHash, type AuditRecord } from '../../../src/governance/audit/audit-record.js';
import { createLogger } from '../../../src/logger.js';

const bin = fileURLToPath(new URL('../../../bin/threadlab.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'audit-cli-'));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, THREADLAB_DATA_DIR: dataDir };
const audit = (...args: string[]) => spawnSync(process.execPath, [bin, 'audit', ...args], { env, encoding: 'utf8' });

const base = (user: string, thread: string, ts: string) => ({
  v: 1 as const,
  ts,
  user,
  platform: 'slack' as const,
  workspace: 'T1',
  channel: 'C1',
  thread,
  threadHash: threadHash(thread),
  job: 'j',
});
const run = (user: string, thread: string, ts: string): AuditRecord => ({
  ...base(user, thread, ts),
  kind: 'run',
  origin: 'user',
  language: 'python',
  codeSha256: 'a'.repeat(64),
  codeBytes: 8,
  status: 'ok',
  durationMs: 12,
  tokens: null,
  filesIn: [],
  filesInMore: 0,
  filesOut: [{ name: 'out.png', bytes: 2048 }],
  filesOutMore: 0,
});

// Two recent lines and one from 2020, relative to the real clock: --since must hold whenever CI runs.
const DAY_MS = 24 * 60 * 60 * 1000;
const recent = (agoMs: number): string => new Date(Date.now() - agoMs).toISOString();
const sinceDay = new Date(Date.now() - 2 * DAY_MS).toISOString().slice(0, 10);

describe('threadlab audit (the shipped CLI process)', () => {
  // The default destination, written as the bot writes it, with one rotation and a foreign line.
  const log = new FileAuditLog({
    path: join(dataDir, 'audit.jsonl'),
    maxBytes: 700,
    keepFiles: 4,
    logger: createLogger({ level: 'silent' }),
  });
  log.write(run('U1', 'slack:T1:C1:1', '2020-01-01T00:00:00.000Z'));
  log.write(run('U2', 'slack:T1:C1:2', recent(60 * 60_000)));
  log.write({
    ...base('U1', 'x', recent(30 * 60_000)),
    thread: null,
    threadHash: threadHash('slack:T1:C1:1'),
    kind: 'egress',
    destination: 'pypi.org:443',
    bytesUp: 1,
    bytesDown: 2,
    verdict: 'allowed',
    reason: null,
  });
  log.close();
  writeFileSync(join(dataDir, 'audit.jsonl'), 'not an audit line\n', { flag: 'a' });

  it('prints every line, oldest first across rotated files, and says what it skipped', () => {
    const res = audit();
    expect(res.status).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^2020-01-01T00:00:00.000Z {2}run .*U1 {2}slack:T1:C1:1 {2}user python ok 12 ms/);
    expect(lines[0]).toContain('out: out.png (2048 B)');
    expect(res.stderr).toContain('1 line(s)');
  }, 30_000);

  it('filters by user, by thread (its egress lines by hash), by time, and prints JSON', () => {
    expect(audit('--user', 'U2').stdout.trim().split('\n')).toHaveLength(1);
    const thread = audit('--thread', 'slack:T1:C1:1', '--json')
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(thread.map((l: { kind: string }) => l.kind)).toEqual(['run', 'egress']);
    const since = audit('--since', sinceDay, '--json').stdout.trim().split('\n');
    expect(since).toHaveLength(2);
    expect(audit('--since', '1d').stdout).not.toContain('2020-01-01');
  }, 30_000);

  it('refuses bad options with exit 2 and what to write', () => {
    const res = audit('--since', 'yesterday');
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('--since: expected an ISO date');
    const off = spawnSync(process.execPath, [bin, 'audit'], {
      env: { ...env, THREADLAB_AUDIT_LOG: 'off' },
      encoding: 'utf8',
    });
    expect(off.status).toBe(2);
    expect(off.stderr).toContain('THREADLAB_AUDIT_LOG=off');
  }, 30_000);
});

describe('threadlab audit prints text chosen in a sandbox without its control characters (issue 26)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-cli-controls-'));
  const hostile = new FileAuditLog({
    path: join(dir, 'audit.jsonl'),
    maxBytes: 1_000_000,
    keepFiles: 1,
    logger: createLogger({ level: 'silent' }),
  });
  // An egress request line as sandboxed code could shape it: ESC, CR, BS and BEL to erase and forge a line,
  // a bidi override, and a literal backslash escape meant to look like one of ours.
  const forged = 'evil.example:443\u001b[2K\r2030-01-01T00:00:00.000Z  run  admin\u0008\u0007\u202e \\x1b';
  hostile.write({
    ...base('U9', 'x', recent(60_000)),
    thread: null,
    threadHash: threadHash('slack:T1:C1:9'),
    kind: 'egress',
    destination: forged,
    bytesUp: 0,
    bytesDown: 0,
    verdict: 'denied',
    reason: 'policy\u001b]0;title\u0007',
  });
  hostile.close();
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [bin, 'audit', ...args], {
      env: { ...env, THREADLAB_DATA_DIR: dir },
      encoding: 'utf8',
    });

  it('escapes every control character in the text view; --json is unchanged', () => {
    const text = run().stdout;
    expect(text.trim().split('\n')).toHaveLength(1);
    // eslint-disable-next-line no-control-regex
    expect(text.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(text).toContain(
      'evil.example:443\\x1b[2K\\x0d2030-01-01T00:00:00.000Z  run  admin\\x08\\x07\\u202e \\\\x1b',
    );
    expect(text).toContain('(policy\\x1b]0;title\\x07)');
    const json = JSON.parse(run('--json').stdout.trim()) as { destination: string; reason: string };
    expect(json.destination).toBe(forged);
    expect(json.reason).toBe('policy\u001b]0;title\u0007');
  }, 30_000);
});

describe('threadlab audit shows the answer lines of model turns', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-cli-answers-'));
  const log = new FileAuditLog({
    path: join(dir, 'audit.jsonl'),
    maxBytes: 1_000_000,
    keepFiles: 1,
    logger: createLogger({ level: 'silent' }),
  });
  const answer = (user: string, checked: number | null, notFound: number | null): AuditRecord => ({
    ...base(user, 'slack:T1:C1:5', recent(60_000)),
    kind: 'answer',
    outcome: 'answer',
    model: 'gpt-x',
    runs: 2,
    tokens: { prompt: 900, completion: 40 },
    durationMs: 2500,
    figuresChecked: checked,
    figuresNotFound: notFound,
    figuresUnchecked: checked === null ? null : 0,
    verificationRound: notFound !== null && notFound > 0,
  });
  log.write(run('U5', 'slack:T1:C1:5', recent(120_000)));
  log.write(answer('U5', 6, 1));
  log.write(answer('U6', null, null));
  log.close();
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [bin, 'audit', ...args], {
      env: { ...env, THREADLAB_DATA_DIR: dir },
      encoding: 'utf8',
    });

  it('--kind answer keeps them; the text view gives the counts of the figures', () => {
    const res = cli('--kind', 'answer');
    expect(res.status, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /answer {6}U5 {2}slack:T1:C1:5 {2}gpt-x answer 2500 ms {2}runs 2 {2}tokens 900\+40 {2}figures 6 checked, 1 not found, verification round$/,
    );
    expect(lines[1]).toMatch(/U6 .* figures not checked$/);
    const json = cli('--kind', 'answer', '--json', '--user', 'U5').stdout.trim().split('\n');
    expect(json.map((l) => JSON.parse(l) as { figuresNotFound: number })).toEqual([
      expect.objectContaining({ kind: 'answer', figuresChecked: 6, figuresNotFound: 1 }),
    ]);
    const bad = cli('--kind', 'answers');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--kind: expected run, model_call, egress, approval, answer');
  }, 30_000);
});
