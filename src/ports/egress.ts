import type { Duplex } from 'node:stream';
import type { EgressDescription } from '../domain/execution.js';

/** Who a relayed connection belongs to, for the audit line. */
export interface EgressContext {
  /** The hashed thread key (the key itself never leaves the bot's core). */
  thread: string;
  /** The platform user whose message started the run, when known. */
  user?: string;
}

/**
 * The bot's egress gateway as the sandbox sees it: a proxy conversation per connection the code opens, within a
 * budget per run (connections, bytes, a deadline). Implemented by src/egress/gateway.ts.
 */
/** A run's budget: closing it ends every connection of the run. */
export interface EgressRunBudget {
  close(): void;
}

export interface EgressPort<Budget extends EgressRunBudget = EgressRunBudget> {
  /** A fresh budget for one run, ending `timeoutMs` from now. */
  newBudget(timeoutMs: number): Budget;
  /** What the code can reach, for the system prompt. */
  describe(): EgressDescription;
  /** Serves one connection of the code until it ends; never throws. */
  handle(client: Duplex, context: EgressContext, budget: Budget): Promise<void>;
}
