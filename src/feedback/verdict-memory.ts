import type { FeedbackVerdict } from '../domain/feedback.js';

/** Verdicts remembered by default: one per person per answer, the least recently given forgotten first. */
export const MAX_REMEMBERED_VERDICTS = 20_000;

/**
 * Each person's current verdict on each answer, so a second click changes it rather than adding to it. Bounded:
 * past `maxEntries` the verdict given longest ago is forgotten (a click on that answer then counts as new; the
 * audit trail, which `threadlab feedback` reads, still keeps one verdict per person per answer).
 */
export class VerdictMemory {
  private readonly verdicts = new Map<string, FeedbackVerdict>();

  /** @param maxEntries @defaultValue {@link MAX_REMEMBERED_VERDICTS} */
  constructor(private readonly maxEntries = MAX_REMEMBERED_VERDICTS) {}

  /** Remembers `verdict` for `key` (thread, answer and person) and returns the one it replaces. */
  set(key: string, verdict: FeedbackVerdict): FeedbackVerdict | undefined {
    const previous = this.verdicts.get(key);
    this.verdicts.delete(key); // re-inserted last: the map's order is the order verdicts were given
    this.verdicts.set(key, verdict);
    while (this.verdicts.size > this.maxEntries) this.verdicts.delete(this.verdicts.keys().next().value!);
    return previous;
  }

  get size(): number {
    return this.verdicts.size;
  }
}
