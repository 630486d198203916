import type { Platform } from '../domain/thread-key.js';

/** A request waiting for a press, as recorded where presses are decided. */
export interface OpenApproval {
  platform: Platform;
  /** The user who asked: with the admins, the only one who may decide. */
  askerId: string;
}

/** A press that decided a request. */
export interface BoardDecision {
  kind: 'run' | 'skip';
  /** Who pressed. */
  by: string;
}

/**
 * Where waiting approval requests are recorded and decided. The process whose turn waits opens a request;
 * the process that receives the press (the same one, or a gateway in split roles) finds it and decides it.
 * The first decision wins; the waiting side hears of it through `onDecided`, or finds it when it closes.
 */
export interface ApprovalBoard {
  /**
   * Records a waiting request for `ttlMs` (after which it is forgotten even if its process died);
   * `onDecided` is called in this process when a press decides it, wherever the press arrived.
   */
  open(id: string, entry: OpenApproval, ttlMs: number, onDecided: (decision: BoardDecision) => void): Promise<void>;
  /** The request still waiting under `id`, or undefined (unknown, decided, closed or expired). */
  find(id: string): Promise<OpenApproval | undefined>;
  /** Decides a waiting request: true when this decision won, false when it was no longer waiting. */
  decide(id: string, decision: BoardDecision): Promise<boolean>;
  /**
   * Ends the request from the waiting side (time limit, stop, done). Resolves to a decision that won just
   * before, which the waiting side may not have heard of yet; later presses find nothing.
   */
  close(id: string): Promise<BoardDecision | undefined>;
  /** Releases connections; waiting requests are left to expire. */
  shutdown(): Promise<void>;
}
