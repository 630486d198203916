import type { Logger } from '../../src/logger.js';
import type { ApprovalBoard } from '../../src/ports/approval-board.js';
import type { BudgetCounters } from '../../src/ports/budget.js';
import type { JobQueue } from '../../src/ports/job-queue.js';
import type { ConversationStore } from '../../src/ports/conversation-store.js';
import { MemoryBudgetCounters } from '../../src/governance/budget/budget-memory-counters.js';
import { InProcessJobQueue, type InProcessJobQueueOptions } from '../../src/queue/in-process-queue.js';
import { MemoryConversationStore } from '../../src/conversations/memory-conversation-store.js';
import { BullMqJobQueue } from './bullmq-queue.js';
import { BullMqScheduler } from './bullmq-scheduler.js';
import type { Scheduler } from '../../src/ports/scheduler.js';
import { InProcessScheduler } from '../../src/schedules/in-process-scheduler.js';
import { pingRedis } from './connection.js';
import { RedisApprovalBoard } from './redis-approval-board.js';
import { RedisBudgetCounters } from './redis-budget-counters.js';
import { RedisConversationStore } from './redis-conversation-store.js';

/** What a queue is made with, whichever backing holds it. */
export type QueueSettings = Omit<InProcessJobQueueOptions, 'now'> & {
  /** How long a thread keeps going to the worker that holds its sandbox (Redis only). */
  affinityTtlMs: number;
};

/**
 * Where the state that processes can share lives: in Redis when REDIS_URL is set (gateways and workers share
 * the queue, memory, budgets and approvals), else in this process's memory. Chosen once, by {@link stateBacking}.
 */
export interface StateBacking {
  /** True with Redis: other processes see this state. */
  readonly shared: boolean;
  queue(settings: QueueSettings): JobQueue;
  conversationStore(logger: Logger): ConversationStore;
  budgetCounters(logger: Logger): BudgetCounters;
  /**
   * The board approval requests wait on, when it must be shared (a Run press reaches whichever process holds
   * the platform connection while the turn waits on a worker); undefined in memory, where the bot's own serves.
   */
  approvalBoard(logger: Logger): ApprovalBoard | undefined;
  /** Where schedules live and fire: timers in this process (lost on restart), or BullMQ job schedulers in Redis. */
  scheduler(logger: Logger): Scheduler;
  /** Checks once that the backing answers (Redis: a PING within 3 s); memory always does. */
  ping(): Promise<void>;
}

/** The backing for REDIS_URL: Redis when set, memory otherwise. */
export function stateBacking(redisUrl: string | undefined): StateBacking {
  return redisUrl ? redisBacking(redisUrl) : MEMORY_BACKING;
}

const MEMORY_BACKING: StateBacking = {
  shared: false,
  queue: ({ affinityTtlMs: _unused, ...settings }) => new InProcessJobQueue(settings),
  conversationStore: () => new MemoryConversationStore(),
  budgetCounters: () => new MemoryBudgetCounters(),
  approvalBoard: () => undefined,
  scheduler: (logger) => new InProcessScheduler({ logger }),
  ping: async () => undefined,
};

function redisBacking(redisUrl: string): StateBacking {
  return {
    shared: true,
    queue: (settings) => new BullMqJobQueue({ redisUrl, ...settings }),
    conversationStore: (logger) => new RedisConversationStore({ redisUrl, logger }),
    budgetCounters: (logger) => new RedisBudgetCounters({ redisUrl, logger }),
    approvalBoard: (logger) => new RedisApprovalBoard({ redisUrl, logger }),
    scheduler: (logger) => new BullMqScheduler({ redisUrl, logger }),
    ping: () => pingRedis(redisUrl),
  };
}
