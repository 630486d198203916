import type { Logger } from '../logger.js';
import type { ApprovalBoard } from './approval-board.js';
import type { BudgetCounters } from './budget.js';
import type { ConversationStore } from './conversation-store.js';
import type { JobQueue } from './job-queue.js';
import type { Scheduler } from './scheduler.js';
import type { InProcessJobQueueOptions } from '../queue/in-process-queue.js';

/** What a queue is made with, whichever backing holds it. */
export type QueueSettings = Omit<InProcessJobQueueOptions, 'now'> & {
  /** How long a thread keeps going to the worker that holds its sandbox (Redis only). */
  affinityTtlMs: number;
};

/**
 * Where the state that processes can share lives: in Redis when REDIS_URL is set (gateways and workers share
 * the queue, memory, budgets and approvals), else in this process's memory. Chosen once per process.
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
