/**
 * "Redis or memory", decided once per process: every piece of state processes share (the queue, conversation
 * memory, budgets' counters, the approval board, schedules) comes from the one backing REDIS_URL chose.
 */
import type { Config } from '../src/config/index.js';
import type { Logger } from '../src/logger.js';
import type { ConversationStore } from '../src/ports/conversation-store.js';
import type { StateBacking } from '../src/ports/state-backing.js';
import { MemoryConversationStore } from '../src/conversations/memory-conversation-store.js';
import { MemoryBudgetCounters } from '../src/governance/budget/budget-memory-counters.js';
import { PurgeHonouringStore, PurgeMarks } from '../src/governance/retention/retention-marks.js';
import { InProcessJobQueue } from '../src/queue/in-process-queue.js';
import { InProcessScheduler } from '../src/schedules/in-process-scheduler.js';

export type { StateBacking } from '../src/ports/state-backing.js';

/**
 * The backing of `config.redis.url`: Redis when set, this process's memory otherwise. The Redis clients (BullMQ,
 * ioredis) are loaded only when it is set: a process without Redis starts without them.
 */
export async function sharedState(config: Pick<Config, 'redis'>): Promise<StateBacking> {
  const url = config.redis.url;
  if (!url) return MEMORY_BACKING;
  const { redisBacking } = await import('../adapters/redis/state-backing.js');
  return redisBacking(url);
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

/**
 * Conversation memory: in Redis when shared, else in this process (honouring `threadlab purge`'s marks, since the
 * purge cannot reach this process's memory otherwise).
 */
export function conversationStore(state: StateBacking, config: Config, logger: Logger): ConversationStore {
  const store = state.conversationStore(logger.child({ component: 'conversations' }));
  return state.shared ? store : honourPurges(store, config);
}

/** This process's memory store (the CLI daemon's), honouring `threadlab purge`'s marks. */
export function processMemoryStore(config: Config): ConversationStore {
  return honourPurges(new MemoryConversationStore(), config);
}

function honourPurges(store: ConversationStore, config: Config): ConversationStore {
  return new PurgeHonouringStore(store, new PurgeMarks(config.dataDir));
}
