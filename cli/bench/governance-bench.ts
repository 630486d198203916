import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { FileAuditLog } from '../../src/governance/audit/audit-file.js';
import { auditedSandbox } from '../../src/governance/audit/audited-sandbox.js';
import { MemoryBudgetCounters } from '../../src/governance/budget/budget-memory-counters.js';
import type { Logger } from '../../src/logger.js';
import { RedisApprovalBoard } from '../../adapters/redis/redis-approval-board.js';
import { RedisBudgetCounters } from '../../adapters/redis/redis-budget-counters.js';
import { closeRedis, createRedis, deleteKeysUnder } from '../../adapters/redis/connection.js';
import type { Sandbox } from '../../src/ports/sandbox.js';
import { time } from './bench-stats.js';
import { accessCheckSamples, approvalDeliverySamples, budgetTurnSamples, memoryBoards } from './governance-samples.js';

/** The sandbox of the audited run, started and closed by the bench; `runtime` is known once it has started. */
export type AuditRunSandbox = Sandbox & { start(): Promise<void>; readonly runtime?: { runtime: string } };

export interface GovernanceBenchOptions {
  /**
   * A new sandbox under the runtime the bot would use here (THREADLAB_SANDBOX_RUNTIME): the run is the one a
   * message makes.
   */
  sandbox: () => AuditRunSandbox;
  /** Scratch directory: the audit file is written here. */
  dataDir: string;
  logger: Logger;
  /** Redis for the shared stores' rows (budget counters, approval board). */
  redisUrl: string;
  /** Samples per row. @defaultValue 200 */
  samples?: number;
  out: (line: string) => void;
}

/** One row: the median (and p95) with the feature on, against the same work without it, in ms. */
export interface GovernanceRow {
  label: string;
  withoutMs: number;
  withMs: number;
  p95Ms: number;
}

/** Access checks per sample, so one sample is long enough to time. */
const ACCESS_BATCH = 1000;
const ACCESS_ENTRIES = 1000;
const fmt = (n: number) => (n === 0 ? '0' : Math.abs(n) < 0.1 ? n.toFixed(4) : n.toFixed(2)).padStart(10);

/**
 * `threadlab bench governance`: what each governance feature adds to a message, side by side with the same work
 * without it, in one run: the access check, an audited run in a real sandbox, a turn's budget bookkeeping (in
 * memory and in Redis) and an approval decision reaching the waiting turn (in this process and through Redis).
 */
export async function benchGovernance(options: GovernanceBenchOptions): Promise<GovernanceRow[]> {
  const { out, logger } = options;
  const samples = options.samples ?? 200;
  out(`threadlab governance bench: ${samples} samples per row`);
  const rows: GovernanceRow[] = [];
  // Without the feature, none of this work is done at all: the rows compare with zero.
  const row = (label: string, withSamples: number[]) =>
    rows.push({ label, withoutMs: 0, withMs: percentile(withSamples, 0.5), p95Ms: percentile(withSamples, 0.95) });
  const perCheck = await accessCheckSamples({ entries: ACCESS_ENTRIES, samples, batch: ACCESS_BATCH, logger });
  const listed = ACCESS_ENTRIES.toLocaleString('en');
  row(`(a) access check, ${listed} places and ${listed} people listed`, perCheck);

  const audit = await auditedRuns({ ...options, samples });
  rows.push(audit.run);
  row('(b) the audit line alone (file append)', audit.lineMs);

  row(
    '(c) budgets per turn: admit, two charges, check (memory)',
    await budgetTurnSamples({
      counters: new MemoryBudgetCounters(),
      samples,
      logger,
    }),
  );
  const prefix = `threadlab-bench-${randomBytes(4).toString('hex')}`;
  const counters = new RedisBudgetCounters({ redisUrl: options.redisUrl, logger, keyPrefix: `${prefix}:budget` });
  const waiting = new RedisApprovalBoard({ redisUrl: options.redisUrl, logger, keyPrefix: `${prefix}:approval` });
  const pressing = new RedisApprovalBoard({ redisUrl: options.redisUrl, logger, keyPrefix: `${prefix}:approval` });
  try {
    row(
      '(c) budgets per turn: admit, two charges, check (Redis)',
      await budgetTurnSamples({ counters, samples, logger }),
    );
    row(
      '(d) approval: a press reaching the waiting turn (process)',
      await approvalDeliverySamples({ ...memoryBoards(), samples }),
    );
    row(
      '(d) approval: a press reaching the waiting turn (Redis)',
      await approvalDeliverySamples({ waiting, pressing, samples }),
    );
  } finally {
    await Promise.all([counters.close(), waiting.shutdown(), pressing.shutdown()]);
    const redis = createRedis(options.redisUrl, { logger, purpose: 'bench-cleanup' });
    await deleteKeysUnder(redis, prefix).catch(() => undefined);
    await closeRedis(redis);
  }
  printRows(rows, out);
  return rows;
}

/** The same warm-session run, bare and through the audit decorator writing to a file, interleaved. */
async function auditedRuns(
  o: GovernanceBenchOptions & { samples: number },
): Promise<{ run: GovernanceRow; lineMs: number[] }> {
  const sandbox = o.sandbox();
  const file = new FileAuditLog({
    path: join(o.dataDir, 'audit.jsonl'),
    maxBytes: 64 << 20,
    keepFiles: 1,
    logger: o.logger,
  });
  const lineMs: number[] = [];
  const timedFile = {
    write: (record: Parameters<FileAuditLog['write']>[0]) => {
      const started = performance.now();
      file.write(record);
      lineMs.push(performance.now() - started);
    },
  };
  const audited = auditedSandbox(sandbox, timedFile);
  const request = { language: 'python' as const, code: 'print(1)', user: 'bench' };
  try {
    await sandbox.start();
    for (let i = 0; i < 3; i++) await audited.run('bench-governance', request); // warm: session, kernel, file
    lineMs.length = 0;
    const bare: number[] = [];
    const withAudit: number[] = [];
    for (let i = 0; i < o.samples; i++) {
      bare.push(...(await time(1, async () => void (await sandbox.run('bench-governance', request)))));
      withAudit.push(...(await time(1, async () => void (await audited.run('bench-governance', request)))));
    }
    const run = {
      label: `(b) print(1) in a warm ${sandbox.runtime?.runtime ?? 'unknown'} sandbox, audited (a line to a file)`,
      withoutMs: percentile(bare, 0.5),
      withMs: percentile(withAudit, 0.5),
      p95Ms: percentile(withAudit, 0.95),
    };
    return { run, lineMs };
  } finally {
    file.close();
    await sandbox.close();
  }
}

function printRows(rows: GovernanceRow[], out: (line: string) => void): void {
  out(
    `${'median ms'.padEnd(68)}${'without'.padStart(10)}${'with'.padStart(10)}${'added'.padStart(10)}${'p95 with'.padStart(10)}`,
  );
  for (const r of rows)
    out(`${r.label.padEnd(68)}${fmt(r.withoutMs)}${fmt(r.withMs)}${fmt(r.withMs - r.withoutMs)}${fmt(r.p95Ms)}`);
}

function percentile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}
