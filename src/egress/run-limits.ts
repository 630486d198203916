/** What one run may use of the network, across all its connections. */
export interface EgressLimits {
  /** Proxy exchanges (connections to the gateway) one run may open. */
  maxConnections: number;
  /** Bytes one run may move, both directions of every connection together. */
  maxBytes: number;
}

/** Why a budget stopped an exchange or refuses new ones; each names the setting or event behind it. */
export type BudgetEnd = 'connections' | 'bytes' | 'deadline' | 'closed';

/** The setting an operator raises for each limit (for messages to the code and the audit line). */
export const BUDGET_MESSAGES: Record<BudgetEnd, string> = {
  connections: 'this run opened its maximum of connections (THREADLAB_EGRESS_MAX_CONNECTIONS)',
  bytes: 'this run used its network bytes (THREADLAB_EGRESS_MAX_MB)',
  deadline: "this run's time is up",
  closed: 'this run has ended',
};

interface Closable {
  destroy(): unknown;
}

/**
 * One run's network budget: connections opened, bytes moved (counted as they flow) and a deadline at
 * which every connection of the run is closed. Created by `EgressGateway.newBudget`.
 */
export class EgressBudget {
  /** Epoch ms after which the run's connections are closed and new ones refused. */
  readonly deadlineAt: number;
  private connections = 0;
  private bytes = 0;
  private ended: BudgetEnd | undefined;
  private exhausted: 'bytes' | undefined;
  private readonly open = new Set<Closable>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly limits: EgressLimits,
    /** Milliseconds from now until the run's deadline. */
    timeoutMs: number,
  ) {
    this.deadlineAt = Date.now() + Math.max(0, timeoutMs);
    this.timer = setTimeout(() => this.end('deadline'), Math.max(0, timeoutMs));
    this.timer.unref();
  }

  /** Counts a new exchange; the reason it may not start, or `undefined` when it may. */
  takeConnection(): BudgetEnd | undefined {
    const refused = this.refusal();
    if (refused) return refused;
    if (this.connections >= this.limits.maxConnections) return 'connections';
    this.connections += 1;
    return undefined;
  }

  /** Why nothing more may flow (ended, or out of bytes), or `undefined`. */
  refusal(): BudgetEnd | undefined {
    return this.ended ?? this.exhausted;
  }

  /**
   * Counts `bytes` about to be forwarded. False, counting nothing, when they would pass the limit: the
   * caller cuts its connection, and every later `spend` and `takeConnection` of the run fails too.
   */
  spend(bytes: number): boolean {
    if (this.ended || this.exhausted) return false;
    if (this.bytes + bytes > this.limits.maxBytes) {
      this.exhausted = 'bytes';
      return false;
    }
    this.bytes += bytes;
    return true;
  }

  /** Destroys `stream` at the deadline or on `close`; call the returned function once it is done. */
  track(stream: Closable): () => void {
    if (this.ended) {
      stream.destroy();
      return () => undefined;
    }
    this.open.add(stream);
    return () => this.open.delete(stream);
  }

  /** Ends every connection of the run now and refuses new ones (call when the run is over). */
  close(): void {
    this.end('closed');
  }

  /** What the run used so far. */
  usage(): { connections: number; bytes: number; ended: BudgetEnd | undefined } {
    return { connections: this.connections, bytes: this.bytes, ended: this.ended ?? this.exhausted };
  }

  private end(reason: BudgetEnd): void {
    if (this.ended) return;
    this.ended = reason;
    clearTimeout(this.timer);
    for (const stream of this.open) stream.destroy();
    this.open.clear();
  }
}
