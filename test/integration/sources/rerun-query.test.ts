import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDataSources } from '../../../adapters/postgres/postgres-data-sources.js';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import { parseAllowlist } from '../../../src/config/access-lists.js';
import { loadConfig } from '../../../src/config/index.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { Bot } from '../../../src/core/bot.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import type { AuditRecord } from '../../../src/governance/audit/audit-record.js';
import { auditedSources } from '../../../src/governance/audit/audited-sources.js';
import { ThreadlabGovernance } from '../../../src/governance/governance.js';
import { InProcessJobQueue } from '../../../src/queue/in-process-queue.js';
import { DEFAULT_LIMITS } from '../../../src/queue/limits.js';
import { InProcessScheduler } from '../../../src/schedules/in-process-scheduler.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { sourceOn, startPostgres, type PrivatePostgres } from '../../support/postgres-server.js';
import { ManualClock } from '../../unit/schedules/manual-clock.js';
import { logger, makeSandbox, type TestSandbox } from '../sandbox/helpers.js';

const HOUR = 3_600_000;
/** The schedule's creator, the one person the source allows (a Discord id). */
const U1 = '100000000000000001';
const thread = { platform: 'discord' as const, workspace: 'g1', channel: 'c1', thread: `rerun-${process.pid}` };
const NORTH = "SELECT sum(amount) AS revenue FROM sales WHERE region = 'north'";

let pg: PrivatePostgres;
let box: TestSandbox;
beforeAll(async () => {
  [pg, box] = await Promise.all([startPostgres(), makeSandbox('rerun-query', { timeoutMs: 30_000 })]);
}, 120_000);
afterAll(async () => {
  await box?.close();
  await pg?.stop();
});

/** A message of the schedule's creator in the thread. */
const message = (text: string, extra: Partial<InboundMessage> = {}): InboundMessage => ({
  ...{ id: randomUUID(), thread, user: { id: U1, name: 'Ada' }, text, attachments: [] },
  ...{ receivedAtMs: Date.now(), ...extra },
});

/** The server's own figure for north, as the python cell prints it. */
const north = async () => Number(await pg.psql("SELECT sum(amount) FROM sales WHERE region = 'north'")).toFixed(2);

describe('a scheduled re-run asks the source again (real PostgreSQL, real sandbox)', () => {
  it("shows a changed row's new figure, audits each query as its creator's, and says so plainly when refused", async () => {
    const config = loadConfig({ THREADLAB_SHUTDOWN_TIMEOUT_MS: '200' });
    const adapter = new RecordingAdapter('discord');
    const clock = new ManualClock(Date.now());
    const audit: AuditRecord[] = [];
    const auditLog = { write: (r: AuditRecord) => void audit.push(r) };
    // Only u1 may use the source: the re-run's queries are asked in the scope of the schedule's creator.
    const settings = sourceOn(pg, pg.reader, { allow: { users: parseAllowlist(`discord:${U1}`, 'who') } });
    const sources = new PostgresDataSources({ sources: [settings], secrets: [pg.reader.password] });
    const queue = new InProcessJobQueue({ logger, limits: DEFAULT_LIMITS });
    const bot = new Bot({
      governance: new ThreadlabGovernance({ config, logger, audit: auditLog }),
      config,
      logger,
      sandbox: box.sandbox,
      store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
      queue,
      renderer: new SharpArtifactRenderer(),
      adapters: [adapter],
      scheduler: new InProcessScheduler({ logger, clock }),
      sources: auditedSources(sources, auditLog),
    });
    // A job lets go of the thread just after its reply; a schedule due while the thread is busy is skipped.
    const idle = async () => {
      for (let waited = 0; await queue.starter(threadKey(thread)); waited += 20) {
        if (waited > 10_000) throw new Error('the thread stayed busy for 10 s');
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const send = async (m: InboundMessage) => {
      await adapter.handler!.onMessage(m);
      const text = (await adapter.nextReply(60_000)).reply.text;
      await idle();
      return text;
    };
    // The next due time, as many times as it takes for a firing to answer: a due time the scheduler had not armed
    // yet when the clock moved (its timer is set just after the schedule's reply), or one it skipped while the
    // thread was still busy on a loaded machine, passes without an answer. Stops advancing once a reply arrived.
    const fired = async () => {
      await idle();
      const answered = adapter.nextReply(60_000);
      let replied = false;
      void answered.then(
        () => (replied = true),
        () => undefined,
      );
      for (let hour = 0; hour < 10 && !replied; hour += 1) {
        await clock.advance(HOUR + 1000);
        for (let waited = 0; waited < 5000 && !replied; waited += 50) await new Promise((r) => setTimeout(r, 50));
      }
      return (await answered).reply;
    };
    try {
      await bot.start();
      const before = await north();
      expect(await send(message(`\`\`\`sql\n-- source: sales\n-- name: totals\n${NORTH}\n\`\`\``))).toContain('totals');
      const cell = '```python\nprint(f"north={float(totals.revenue.iloc[0]):.2f}")\n```';
      expect(await send(message(cell))).toContain(`north=${before}`);
      expect(
        await send(message('/schedule every 1h rerun', { command: { name: 'schedule', text: 'every 1h rerun' } })),
      ).toMatch(/^Scheduled #1/);

      const first = await fired();
      expect(first.text).toContain('Re-ran 2 of 2 cells');
      expect(first.text).toContain(`north=${before}`);
      expect(first.text).not.toMatch(/stale/);

      await pg.psql(
        "UPDATE sales SET amount = amount + 1000 WHERE id = (SELECT min(id) FROM sales WHERE region = 'north')",
      );
      const after = await north();
      expect(Number(after) - Number(before)).toBeCloseTo(1000, 2);
      const second = await fired();
      expect(second.text).toContain(`north=${after}`);
      expect(second.text).not.toContain(`north=${before}`);
      expect(second.kind).not.toBe('error');
      // One query line per asking (the message, then each re-run), each as u1, the re-runs' with their job.
      const queries = audit.filter((r) => r.kind === 'query');
      expect(queries).toHaveLength(3);
      expect(queries.every((q) => q.user === U1 && q.outcome === 'ok')).toBe(true);
      expect(queries[2]!.job).toMatch(/^schedule:/);

      // The source now refuses the role: the re-run says so, and runs nothing from the old rows.
      await pg.psql(`REVOKE pg_read_all_data FROM ${pg.reader.user}`);
      try {
        const refused = await fired();
        expect(refused.kind).toBe('error');
        expect(refused.text).toContain('The query on `sales` could not run again');
        expect(refused.text).toMatch(/permission denied/i);
        expect(refused.text).toContain('nothing in this re-run comes from old rows of `sales`');
        expect(refused.text).not.toMatch(/north=/);
        expect(refused.text).toContain('Re-ran 0 of 2 cells');
      } finally {
        await pg.psql(`GRANT pg_read_all_data TO ${pg.reader.user}`);
      }
      expect(audit.filter((r) => r.kind === 'query').at(-1)).toMatchObject({ user: U1, outcome: 'refused' });
    } finally {
      await bot.stop();
    }
  }, 240_000);
});
