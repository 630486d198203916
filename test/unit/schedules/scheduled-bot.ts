import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import { loadConfig } from '../../../src/config/index.js';
import { Bot } from '../../../src/core/bot.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import type { AuditRecord } from '../../../src/governance/audit/audit-record.js';
import { auditedSandbox } from '../../../src/governance/audit/audited-sandbox.js';
import { DailyBudgets } from '../../../src/governance/budget/budget.js';
import { MemoryBudgetCounters } from '../../../src/governance/budget/budget-memory-counters.js';
import { ThreadlabGovernance } from '../../../src/governance/governance.js';
import { createLogger } from '../../../src/logger.js';
import { InProcessJobQueue } from '../../../src/queue/in-process-queue.js';
import { DEFAULT_LIMITS } from '../../../src/queue/limits.js';
import { InProcessScheduler } from '../../../src/schedules/in-process-scheduler.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox, type FakeRunHandler } from '../../fakes/fake-sandbox.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { ManualClock } from './manual-clock.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });
export const HOUR = 3_600_000;
export const thread = { platform: 'discord' as const, workspace: 'g1', channel: 'c1', thread: 't1' };

export function message(text: string, user = 'u1', extra: Partial<InboundMessage> = {}): InboundMessage {
  return {
    id: randomUUID(),
    thread,
    user: { id: user, name: user },
    text,
    attachments: [],
    receivedAtMs: Date.now(),
    ...extra,
  };
}
export const schedule = (text: string, user = 'u1') =>
  message(`/schedule ${text}`, user, { command: { name: 'schedule', text } });

let current: Bot | undefined;
/** Stops the Bot the last `setup` made (each test file's afterEach). */
export async function stopScheduledBot(): Promise<void> {
  await current?.stop();
  current = undefined;
}

/** A Bot with a test clock's scheduler, a fake sandbox running `handler` and an audit trail kept in memory. */
export function setup(
  env: Record<string, string> = {},
  handler?: FakeRunHandler,
  limits: Partial<typeof DEFAULT_LIMITS> = {},
) {
  const config = loadConfig({ THREADLAB_SHUTDOWN_TIMEOUT_MS: '200', ...env });
  const adapter = new RecordingAdapter('discord');
  const clock = new ManualClock(Date.now());
  const scheduler = new InProcessScheduler({ logger, clock });
  const audit: AuditRecord[] = [];
  const fake = new FakeSandbox(handler ? { handler } : {});
  const auditLog = { write: (r: AuditRecord) => void audit.push(r) };
  const budgets =
    config.budgets.userDailyRunSeconds > 0
      ? new DailyBudgets({ counters: new MemoryBudgetCounters(), limits: config.budgets, logger })
      : undefined;
  const bot = new Bot({
    governance: new ThreadlabGovernance({
      config,
      logger,
      audit: auditLog,
      ...(budgets ? { budgets } : {}),
    }),
    config,
    logger,
    sandbox: auditedSandbox(fake, auditLog),
    store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
    queue: new InProcessJobQueue({ logger, limits: { ...DEFAULT_LIMITS, ...limits } }),
    renderer: new SharpArtifactRenderer(),
    adapters: [adapter],
    scheduler,
  });
  current = bot;
  const send = async (m: InboundMessage) => {
    await adapter.handler!.onMessage(m);
    return (await adapter.nextReply()).reply.text;
  };
  return { adapter, clock, scheduler, bot, audit, send, fake };
}

/**
 * Starts the bot, runs a cell in the thread and schedules its re-run every hour (schedule #1), each message once
 * the job before it let go of its slot (just after its reply), so a one-job-per-user limit refuses neither.
 */
export async function startHourlyRerun(bot: Bot, send: (m: InboundMessage) => Promise<string>): Promise<void> {
  const settle = () => new Promise((r) => setTimeout(r, 100));
  await bot.start();
  await send(message('```python\nprint(1)\n```'));
  await settle();
  expect(await send(schedule('every 1h rerun'))).toMatch(/^Scheduled #1/);
  await settle();
}

/** The audit lines of scheduled firings. */
export const scheduleLines = (audit: AuditRecord[]) => audit.filter((r) => r.kind === 'schedule');
