import { describe, expect, it } from 'vitest';
import { FeedbackSummer, MAX_SUMMARY_MODELS } from '../../../src/feedback/feedback-summary.js';
import { parseAuditLine, type AuditLine } from '../../../src/governance/audit/audit-record.js';
import { summaryText } from '../../../cli/commands/feedback.js';

const base = {
  v: 1,
  user: 'U1',
  platform: 'slack',
  workspace: 'T',
  channel: 'C',
  thread: 'k',
  threadHash: 'h1',
  job: null,
};
const answer = (model: string, outcome = 'answer'): AuditLine =>
  parseAuditLine(JSON.stringify({ ...base, ts: '2026-05-01T10:00:00.000Z', kind: 'answer', outcome, model }))!;
const verdict = (o: { user: string; model: string; answer: string; verdict: string; ts?: string; comment?: string }) =>
  parseAuditLine(
    JSON.stringify({
      ...base,
      ts: o.ts ?? '2026-05-01T11:00:00.000Z',
      kind: 'feedback',
      user: o.user,
      verdict: o.verdict,
      previous: null,
      model: o.model,
      answer: o.answer,
      answerMessage: null,
      comment: o.comment ?? null,
    }),
  )!;

describe('FeedbackSummer', () => {
  it('counts answers per model and each person’s last verdict per answer, with comments newest first', () => {
    const s = new FeedbackSummer();
    for (const line of [
      answer('qwen3:8b'),
      answer('qwen3:8b'),
      answer('qwen3:8b', 'failed'),
      answer('gpt-4.1'),
      verdict({ user: 'U1', model: 'qwen3:8b', answer: 'q1', verdict: 'good' }),
      verdict({ user: 'U1', model: 'qwen3:8b', answer: 'q1', verdict: 'bad', ts: '2026-05-01T12:00:00.000Z' }),
      verdict({
        user: 'U1',
        model: 'qwen3:8b',
        answer: 'q1',
        verdict: 'bad',
        comment: 'wrong column',
        ts: '2026-05-01T12:01:00.000Z',
      }),
      verdict({
        user: 'U2',
        model: 'qwen3:8b',
        answer: 'q1',
        verdict: 'good',
        comment: 'nice',
        ts: '2026-05-01T13:00:00.000Z',
      }),
      verdict({ user: 'U2', model: 'qwen3:8b', answer: 'q2', verdict: 'good' }),
      verdict({ user: 'U1', model: 'gpt-4.1', answer: 'q3', verdict: 'bad' }),
      { ...verdict({ user: 'U9', model: 'x', answer: 'q', verdict: 'meh' }) },
    ])
      s.add(line);
    const { models, notCounted } = s.summary();
    expect(notCounted).toBe(1);
    expect(models[0]).toEqual({
      model: 'qwen3:8b',
      answers: 2,
      rated: 2,
      good: 2,
      bad: 1,
      positiveShare: 2 / 3,
      comments: [
        { ts: '2026-05-01T13:00:00.000Z', verdict: 'good', user: 'U2', comment: 'nice' },
        { ts: '2026-05-01T12:01:00.000Z', verdict: 'bad', user: 'U1', comment: 'wrong column' },
      ],
      commentsMore: 0,
    });
    expect(models[1]).toMatchObject({ model: 'gpt-4.1', answers: 1, good: 0, bad: 1, positiveShare: 0 });
    const text = summaryText({ models, notCounted });
    expect(text).toMatch(/qwen3:8b\s+2\s+2\s+2\s+1\s+67 %/);
    expect(text).toContain('👎  U1: wrong column');
  });

  it('bounds the comments listed and the models held', () => {
    const s = new FeedbackSummer({ commentsPerModel: 2 });
    for (let i = 0; i < 5; i += 1)
      s.add(verdict({ user: `U${i}`, model: 'm', answer: 'q', verdict: 'bad', comment: `c${i}` }));
    for (let i = 0; i < MAX_SUMMARY_MODELS + 5; i += 1) s.add(answer(`model-${i}`));
    const { models } = s.summary();
    expect(models).toHaveLength(MAX_SUMMARY_MODELS);
    const m = models.find((x) => x.model === 'm')!;
    expect(m.comments).toHaveLength(2);
    expect(m.commentsMore).toBe(3);
  });
});
