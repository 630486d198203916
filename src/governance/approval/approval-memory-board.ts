import type { ApprovalBoard, BoardDecision, OpenApproval } from '../../ports/approval-board.js';

interface Entry {
  open: OpenApproval;
  onDecided: (decision: BoardDecision) => void;
  decided?: BoardDecision;
  timer: NodeJS.Timeout;
}

/**
 * Approval requests in this process: for one process holding both roles (`--role all` without Redis).
 * Bounded by the gate's `maxPending`; each entry also expires after its time to live.
 */
export class MemoryApprovalBoard implements ApprovalBoard {
  private readonly entries = new Map<string, Entry>();

  async open(id: string, open: OpenApproval, ttlMs: number, onDecided: (d: BoardDecision) => void): Promise<void> {
    const timer = setTimeout(() => this.entries.delete(id), ttlMs);
    timer.unref();
    this.entries.set(id, { open, onDecided, timer });
  }

  async find(id: string): Promise<OpenApproval | undefined> {
    const entry = this.entries.get(id);
    return entry && !entry.decided ? entry.open : undefined;
  }

  async decide(id: string, decision: BoardDecision): Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry || entry.decided) return false;
    entry.decided = decision;
    entry.onDecided(decision);
    return true;
  }

  async close(id: string): Promise<BoardDecision | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.entries.delete(id);
    return entry.decided;
  }

  async shutdown(): Promise<void> {
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
    this.entries.clear();
  }
}
