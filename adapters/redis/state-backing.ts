import type { StateBacking } from '../../src/ports/state-backing.js';
import { BullMqJobQueue } from './bullmq-queue.js';
import { BullMqScheduler } from './bullmq-scheduler.js';
import { pingRedis } from './connection.js';
import { RedisApprovalBoard } from './redis-approval-board.js';
import { RedisBudgetCounters } from './redis-budget-counters.js';
import { RedisConversationStore } from './redis-conversation-store.js';

/** The shared state of every process pointed at `redisUrl`: the queue, memory, budgets, approvals and schedules. */
export function redisBacking(redisUrl: string): StateBacking {
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
