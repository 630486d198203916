/**
 * "Redis or memory", decided once per process: every piece of state processes share (the queue, conversation
 * memory, budgets' counters, the approval board, schedules) comes from the one backing REDIS_URL chose.
 */
import type { Config } from '../src/config/index.js';
import type { Logger } from '../src/logger.js';
import type { ConversationStore } from '../src/ports/conversation-store.js';
import { MemoryConversationStore } from '../src/conversations/memory-conversation-store.js';
import { PurgeHonouringStore, PurgeMarks } from '../src/governance/retention/retention-marks.js';
import { stateBacking, type StateBacking } from '../adapters/redis/state-backing.js';

export type { StateBacking } from '../adapters/redis/state-backing.js';

/** The backing of `config.redis.url`: Redis when set, this process's memory otherwise. */
export function sharedState(config: Pick<Config, 'redis'>): StateBacking {
  return stateBacking(config.redis.url);
}

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
