import type { AuditLine } from '../governance/audit/audit-record.js';

/** Most people's verdicts held while summarising; lines past it are counted in `notCounted`. */
export const MAX_SUMMARY_VERDICTS = 200_000;
/** Most models listed; others are counted in `notCounted`. */
export const MAX_SUMMARY_MODELS = 100;
/** Comments listed per model by default, newest first. */
export const DEFAULT_COMMENTS_PER_MODEL = 10;

/** One model's line of `threadlab feedback`. */
export interface ModelFeedback {
  model: string;
  /** Turns of this model that ended with an answer (`answer` audit lines). */
  answers: number;
  /** Answers with at least one verdict. */
  rated: number;
  good: number;
  bad: number;
  /** good / (good + bad); `null` without verdicts. */
  positiveShare: number | null;
  /** The newest comments (each person's last verdict on an answer, when it had one). */
  comments: { ts: string; verdict: 'good' | 'bad'; user: string | null; comment: string }[];
  /** Comments past the list's bound. */
  commentsMore: number;
}

export interface FeedbackSummary {
  models: ModelFeedback[];
  /** Feedback lines not counted: past {@link MAX_SUMMARY_VERDICTS} or {@link MAX_SUMMARY_MODELS}, or malformed. */
  notCounted: number;
}

interface Verdict {
  ts: string;
  verdict: 'good' | 'bad';
  user: string | null;
  model: string;
  answer: string;
  comment: string | null;
}

/**
 * Sums audit lines (already filtered by time) per model: answers from `answer` lines, and each person's last
 * verdict per answer from `feedback` lines (a changed verdict counts once, as its last value; a comment sent with
 * a repeated verdict is kept). Memory stays within the bounds above whatever the trail's size.
 */
export class FeedbackSummer {
  private readonly answers = new Map<string, number>();
  private readonly verdicts = new Map<string, Verdict>();
  private notCounted = 0;

  constructor(private readonly options: { commentsPerModel?: number } = {}) {}

  add(line: AuditLine): void {
    if (line.kind === 'answer') {
      if (line.outcome !== 'answer' || typeof line.model !== 'string') return;
      if (!this.answers.has(line.model) && this.answers.size >= MAX_SUMMARY_MODELS) return;
      this.answers.set(line.model, (this.answers.get(line.model) ?? 0) + 1);
      return;
    }
    if (line.kind !== 'feedback') return;
    const { verdict, model, answer, comment } = line;
    if ((verdict !== 'good' && verdict !== 'bad') || typeof model !== 'string' || typeof answer !== 'string') {
      this.notCounted += 1;
      return;
    }
    const key = `${line.threadHash}\n${answer}\n${line.user ?? ''}`;
    const earlier = this.verdicts.get(key);
    if (!earlier && this.verdicts.size >= MAX_SUMMARY_VERDICTS) {
      this.notCounted += 1;
      return;
    }
    // A repeated verdict that only brings a comment keeps it; a new verdict without one drops the old comment.
    const kept = typeof comment === 'string' ? comment : earlier?.verdict === verdict ? earlier.comment : null;
    this.verdicts.set(key, { ts: line.ts, verdict, user: line.user, model, answer, comment: kept });
  }

  summary(): FeedbackSummary {
    const perModel = new Map<string, { good: number; bad: number; rated: Set<string>; comments: Verdict[] }>();
    let notCounted = this.notCounted;
    const entry = (model: string) => {
      let e = perModel.get(model);
      if (!e) {
        e = { good: 0, bad: 0, rated: new Set(), comments: [] };
        perModel.set(model, e);
      }
      return e;
    };
    for (const v of this.verdicts.values()) {
      if (!perModel.has(v.model) && perModel.size >= MAX_SUMMARY_MODELS) {
        notCounted += 1;
        continue;
      }
      const e = entry(v.model);
      e[v.verdict] += 1;
      e.rated.add(v.answer);
      if (v.comment) e.comments.push(v);
    }
    // Models with verdicts come first; models that were only answering fill the room left.
    for (const model of this.answers.keys())
      if (perModel.has(model) || perModel.size < MAX_SUMMARY_MODELS) entry(model);
    const limit = this.options.commentsPerModel ?? DEFAULT_COMMENTS_PER_MODEL;
    const models = [...perModel.entries()].map(([model, e]): ModelFeedback => {
      const newest = e.comments.sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));
      const votes = e.good + e.bad;
      return {
        model,
        answers: this.answers.get(model) ?? 0,
        rated: e.rated.size,
        good: e.good,
        bad: e.bad,
        positiveShare: votes === 0 ? null : e.good / votes,
        comments: newest
          .slice(0, limit)
          .map((c) => ({ ts: c.ts, verdict: c.verdict, user: c.user, comment: c.comment ?? '' })),
        commentsMore: Math.max(0, newest.length - limit),
      };
    });
    models.sort((a, b) => b.good + b.bad - (a.good + a.bad) || b.answers - a.answers || a.model.localeCompare(b.model));
    return { models, notCounted };
  }
}
