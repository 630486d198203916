/**
 * `threadlab feedback` as a process, reading an audit file of the lines the bot writes (the real answerRecord and
 * feedbackRecord builders): the per-model table, --json, --since, --comments, and bad input (an unknown flag, a
 * missing file, a directory, a file this user cannot read, a bad --since) refused with exit 2 and what to do.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadKey } from '../../../src/domain/thread-key.js';
import type { FeedbackSummary } from '../../../src/feedback/feedback-summary.js';
import { answerRecord } from '../../../src/governance/audit/audit-answer.js';
import { feedbackRecord } from '../../../src/governance/audit/audit-feedback.js';
import { formatAuditLine, type AuditRecord } from '../../../src/governance/audit/audit-record.js';
import { checkoutReachableByOthers } from '../../support/checkout-reach.js';
import { cliEnv, runCli } from './cli-process.js';

const DAY_MS = 24 * 60 * 60 * 1000;
let dir: string;
let auditFile: string;

/** A line as the bot writes it, dated `daysAgo` back. */
const dated = (record: AuditRecord, daysAgo: number): string =>
  formatAuditLine({ ...record, ts: new Date(Date.now() - daysAgo * DAY_MS).toISOString() });

function trail(): string {
  const key = (thread: string) => threadKey({ platform: 'slack', workspace: 'T1', channel: 'C1', thread });
  const answer = (model: string, thread: string, daysAgo: number) =>
    dated(
      answerRecord({
        threadKey: key(thread),
        userId: 'UASK',
        outcome: 'answer',
        model,
        runs: 1,
        usage: { promptTokens: 900, completionTokens: 120 },
        durationMs: 4200,
      }),
      daysAgo,
    );
  const verdict = (
    o: {
      model: string;
      thread: string;
      user: string;
      verdict: 'good' | 'bad';
      previous?: 'good' | 'bad';
      comment?: string;
    },
    daysAgo: number,
  ) =>
    dated(
      feedbackRecord({
        threadKey: key(o.thread),
        userId: o.user,
        verdict: o.verdict,
        ...(o.previous ? { previous: o.previous } : {}),
        model: o.model,
        questionId: `q-${o.thread}`,
        ...(o.comment ? { comment: o.comment } : {}),
      }),
      daysAgo,
    );
  const qwen = 'qwen3:8b';
  const oss = 'gpt-oss:20b';
  return [
    // gpt-oss, ten days ago: two answers, one 👎 with a comment.
    answer(oss, '1.1', 10),
    answer(oss, '1.2', 10),
    verdict({ model: oss, thread: '1.1', user: 'U1', verdict: 'bad', comment: 'made up a column' }, 10),
    // qwen, today: three answers; on A U1 says 👍 then changes to 👎 with a comment, U2 says 👍; on B U1 says 👍.
    answer(qwen, '2.1', 0),
    answer(qwen, '2.2', 0),
    answer(qwen, '2.3', 0),
    verdict({ model: qwen, thread: '2.1', user: 'U1', verdict: 'good' }, 0),
    verdict({ model: qwen, thread: '2.1', user: 'U2', verdict: 'good' }, 0),
    verdict({ model: qwen, thread: '2.1', user: 'U1', verdict: 'bad', previous: 'good', comment: 'wrong unit' }, 0),
    verdict({ model: qwen, thread: '2.2', user: 'U1', verdict: 'good' }, 0),
    '{"not": "an audit line"}\n',
  ].join('');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'threadlab-feedback-cli-'));
  auditFile = join(dir, 'audit.jsonl');
  writeFileSync(auditFile, trail());
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const feedback = (args: string[], env: Record<string, string> = {}, uid?: number) =>
  runCli(['feedback', ...args], { env: cliEnv(dir, env), ...(uid !== undefined ? { uid } : {}) });

/** The table's row of `model`, its cells split on runs of spaces. */
const row = (stdout: string, model: string) =>
  stdout
    .split('\n')
    .find((l) => l.startsWith(`${model} `))
    ?.trim()
    .split(/ {2,}/);

describe('threadlab feedback', () => {
  it('sums the configured audit file per model: answers, rated, 👍, 👎 (each last verdict), share positive, comments', async () => {
    const out = await feedback([], { THREADLAB_AUDIT_LOG: auditFile });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n')[0]).toMatch(/^model\s+answers\s+rated\s+👍\s+👎\s+positive$/);
    expect(row(out.stdout, 'qwen3:8b')).toEqual(['qwen3:8b', '3', '2', '2', '1', '67 %']);
    expect(row(out.stdout, 'gpt-oss:20b')).toEqual(['gpt-oss:20b', '2', '1', '0', '1', '0 %']);
    expect(out.stdout).toMatch(/Comments on qwen3:8b:\n {2}\S+ {2}👎 {2}U1: wrong unit\n/);
    expect(out.stdout).toMatch(/Comments on gpt-oss:20b:\n {2}\S+ {2}👎 {2}U1: made up a column\n/);
  });

  it('--json gives the same summary as one object; --since 7d leaves the older model out; --comments 0 lists none', async () => {
    const all = await feedback(['--json', '--file', auditFile]);
    expect(all.code).toBe(0);
    const summary = JSON.parse(all.stdout) as FeedbackSummary;
    expect(summary.models.map((m) => [m.model, m.answers, m.rated, m.good, m.bad])).toEqual([
      ['qwen3:8b', 3, 2, 2, 1],
      ['gpt-oss:20b', 2, 1, 0, 1],
    ]);
    expect(summary.models[0]!.positiveShare).toBeCloseTo(2 / 3);
    expect(summary.models[0]!.comments).toMatchObject([{ verdict: 'bad', user: 'U1', comment: 'wrong unit' }]);

    const recent = await feedback(['--since', '7d', '--json', '--file', auditFile]);
    expect((JSON.parse(recent.stdout) as FeedbackSummary).models.map((m) => m.model)).toEqual(['qwen3:8b']);
    const quiet = await feedback(['--since', '7d', '--comments', '0', '--file', auditFile]);
    expect(row(quiet.stdout, 'qwen3:8b')).toEqual(['qwen3:8b', '3', '2', '2', '1', '67 %']);
    expect(quiet.stdout).not.toContain('gpt-oss');
    expect(quiet.stdout).not.toContain('Comments on');
    const future = await feedback(['--since', new Date(Date.now() + DAY_MS).toISOString(), '--file', auditFile]);
    expect(future.stdout).toBe('No answers or feedback in the audit trail for this period.\n');
  });

  it('answers bad input with exit 2 and what to do', async () => {
    const cases: [string[], RegExp][] = [
      [['--bogus'], /Unknown option '--bogus'[\s\S]*threadlab feedback --help/],
      [['--since', 'last tuesday', '--file', auditFile], /--since: expected an ISO date .* \(got "last tuesday"\)/],
      [['--comments', '101', '--file', auditFile], /--comments: expected a whole number from 0 to 100 \(got "101"\)/],
      [['extra', '--file', auditFile], /Unexpected argument "extra"/],
      [['--file', join(dir, 'missing.jsonl')], /There is no audit file at .*missing\.jsonl\./],
      [['--file', dir], /is not a file: pass the audit file itself with --file PATH/],
    ];
    for (const [args, message] of cases) {
      const out = await feedback(args);
      expect({ args, code: out.code }).toEqual({ args, code: 2 });
      expect(out.stderr).toMatch(message);
      expect(out.stdout).toBe('');
    }
    const fresh = await feedback([], { THREADLAB_AUDIT_LOG: join(dir, 'fresh', 'audit.jsonl') });
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toMatch(/no audit file at .*fresh\/audit\.jsonl \(THREADLAB_AUDIT_LOG.*\) yet/);
    const off = await feedback([], { THREADLAB_AUDIT_LOG: 'off' });
    expect(off.code).toBe(2);
    expect(off.stderr).toContain('THREADLAB_AUDIT_LOG=off: there is no audit file to read. Pass --file PATH.');
  });

  // As another user, which needs root to switch to and a checkout that user can reach to load the CLI.
  it.skipIf(process.getuid?.() !== 0 || !checkoutReachableByOthers())(
    'refuses a file this user cannot read with exit 2',
    async () => {
      const closed = join(dir, 'closed');
      mkdirSync(closed, { mode: 0o755 });
      const secret = join(closed, 'audit.jsonl');
      writeFileSync(secret, trail());
      chmodSync(secret, 0o600);
      const out = await feedback(['--file', secret], {}, 65534);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/cannot be read \(EACCES\): run threadlab feedback as the user Threadlab runs as/);
    },
  );
});
