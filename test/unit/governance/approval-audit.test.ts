import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApprovalGate } from '../../../src/governance/approval/approval-gate.js';
import { FileAuditLog } from '../../../src/governance/audit/audit-file.js';
import { readAuditFiles } from '../../../src/governance/audit/audit-read.js';
import { sha256Hex, threadHash, type AuditLine } from '../../../src/governance/audit/audit-record.js';
import { createLogger } from '../../../src/logger.js';
import type { ApprovalView } from '../../../src/ports/approval.js';

const bin = fileURLToPath(new URL('../../../bin/threadlab.js', import.meta.url));
const logger = createLogger({ level: 'silent' });
const KEY = 'slack:T1:C1:1.0';
const CODE = 'print("é")';

/** A gate writing to a real audit file, and a surface that records what it showed. */
function setup(options: { timeoutMs?: number; maxPending?: number } = {}) {
  const path = join(mkdtempSync(join(tmpdir(), 'approval-audit-')), 'audit.jsonl');
  const audit = new FileAuditLog({ path, maxBytes: 1 << 20, keepFiles: 1, logger });
  const gate = new ApprovalGate({
    timeoutMs: options.timeoutMs ?? 5000,
    admins: ['slack:U_ADMIN'],
    ...(options.maxPending ? { maxPending: options.maxPending } : {}),
    logger,
    audit,
  });
  const shown: ApprovalView[] = [];
  const request = (signal = new AbortController().signal) =>
    gate.request({
      platform: 'slack',
      threadKey: KEY,
      askerId: 'U_ASKER',
      language: 'python',
      code: CODE,
      signal,
      show: async (view) => {
        shown.push(view);
        return { settle: async () => undefined };
      },
    });
  const waitShown = async (count: number) => {
    while (shown.length < count) await new Promise((r) => setTimeout(r, 5));
    return shown[count - 1]!;
  };
  const lines = async () => {
    const out: AuditLine[] = [];
    for await (const read of readAuditFiles([path])) if (read.ok) out.push(read.line);
    return out;
  };
  return { gate, path, audit, request, waitShown, lines };
}

describe('approval decisions in the audit trail (ApprovalGate with the file sink)', () => {
  it('each request leaves one approval line: who asked, the code, the decision and who pressed', async () => {
    const { gate, request, waitShown, lines, path, audit } = setup({ timeoutMs: 200 });
    // The asker runs it; a stranger's press before that is refused and leaves no line.
    const first = request();
    const v1 = await waitShown(1);
    gate.press('slack', { approvalId: v1.approvalId, action: 'run', userId: 'U_OTHER' });
    await new Promise((r) => setTimeout(r, 30));
    gate.press('slack', { approvalId: v1.approvalId, action: 'run', userId: 'U_ASKER' });
    await first;
    // An admin skips.
    const second = request();
    const v2 = await waitShown(2);
    gate.press('slack', { approvalId: v2.approvalId, action: 'skip', userId: 'U_ADMIN' });
    await second;
    // Nobody answers.
    await request();
    // The turn is stopped while it waits.
    const stop = new AbortController();
    const fourth = request(stop.signal);
    const v4 = await waitShown(4);
    stop.abort(new Error('stopped'));
    await expect(fourth).rejects.toThrow('stopped');

    const all = await lines();
    expect(all).toHaveLength(4);
    const common = {
      v: 1,
      user: 'U_ASKER',
      platform: 'slack',
      workspace: 'T1',
      channel: 'C1',
      thread: KEY,
      threadHash: threadHash(KEY),
      kind: 'approval',
      language: 'python',
      codeSha256: sha256Hex(CODE),
      codeBytes: Buffer.byteLength(CODE, 'utf8'),
    };
    expect(all[0]).toMatchObject({ ...common, decision: 'run', by: 'asker', admin: null, approvalId: v1.approvalId });
    expect(all[0]!.waitedMs).toBeGreaterThanOrEqual(25);
    expect(all[1]).toMatchObject({
      ...common,
      decision: 'skip',
      by: 'admin',
      admin: 'U_ADMIN',
      approvalId: v2.approvalId,
    });
    expect(all[2]).toMatchObject({ ...common, decision: 'timeout', by: null, admin: null });
    expect(all[2]!.waitedMs).toBeGreaterThanOrEqual(190);
    expect(all[3]).toMatchObject({ ...common, decision: 'cancelled', by: null, approvalId: v4.approvalId });
    // The asker's id is only in `user`, so erasure's pseudonym covers who pressed.
    expect(JSON.stringify(all[0]).match(/U_ASKER/g)).toHaveLength(1);

    // A run line in the same file; `threadlab audit --kind approval` (the CLI process) shows only the decisions.
    audit.write({
      ...all[0]!,
      kind: 'egress',
      destination: 'x:1',
      bytesUp: 0,
      bytesDown: 0,
      verdict: 'allowed',
      reason: null,
    } as never);
    audit.close();
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [bin, 'audit', '--file', path, ...args], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, THREADLAB_DATA_DIR: join(path, '..') },
        encoding: 'utf8',
      });
    const json = cli('--kind', 'approval', '--json');
    expect(json.status).toBe(0);
    const decisions = json.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { decision: string }).decision);
    expect(decisions).toEqual(['run', 'skip', 'timeout', 'cancelled']);
    const text = cli('--kind', 'approval').stdout;
    expect(text).toContain('skip by admin U_ADMIN after');
    expect(text).toContain('run by the asker after');
    expect(cli('--kind', 'approvals').stderr).toContain('expected run, model_call, egress, approval');
  }, 60_000);

  it('a request refused because too many wait leaves an unavailable line without an id', async () => {
    const { request, waitShown, lines, gate } = setup({ maxPending: 1 });
    const waiting = request();
    const view = await waitShown(1);
    expect((await request()).kind).toBe('unavailable');
    gate.press('slack', { approvalId: view.approvalId, action: 'skip', userId: 'U_ASKER' });
    await waiting;
    const all = await lines();
    expect(all.map((l) => l.decision)).toEqual(['unavailable', 'skip']);
    expect(all[0]).toMatchObject({ approvalId: null, by: null, user: 'U_ASKER' });
  });
});
