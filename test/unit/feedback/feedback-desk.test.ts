import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { FeedbackDesk } from '../../../src/feedback/feedback-desk.js';
import { VerdictMemory } from '../../../src/feedback/verdict-memory.js';
import type { AuditFeedbackRecord, AuditRecord } from '../../../src/governance/audit/audit-record.js';
import { auditLineText } from '../../../src/governance/audit/audit-text.js';
import { createLogger } from '../../../src/logger.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });
const key = threadKey({ platform: 'slack', workspace: 'T1', channel: 'C1', thread: '100.1' });

async function desk(ledgerGraceMs = 0) {
  const store = new MemoryConversationStore();
  await store.put(
    key,
    {
      history: [],
      createdAtMs: 0,
      updatedAtMs: 0,
      trimmedEntries: 0,
      answers: [
        {
          questionId: 'q-model',
          userId: 'U1',
          text: 'mean?',
          answerIds: ['200.1', '200.2'],
          atMs: 1,
          model: 'qwen3:8b',
        },
        { questionId: 'q-direct', userId: 'U1', text: '```print(1)```', answerIds: ['300.1'], atMs: 2 },
      ],
    },
    60_000,
  );
  const lines: AuditRecord[] = [];
  const counted: string[] = [];
  const d = new FeedbackDesk({
    store,
    audit: { write: (r) => lines.push(r) },
    metrics: { feedback: (verdict, model) => counted.push(`${verdict}:${model}`) },
    logger,
    ledgerGraceMs,
  });
  return { d, store, lines: lines as AuditFeedbackRecord[], counted };
}

describe('FeedbackDesk', () => {
  it('records a click against the model the answer ledger holds, found by any of its messages', async () => {
    const { d, lines, counted } = await desk();
    const outcome = await d.give({ threadKey: key, answerRef: '200.2', user: { id: 'U2' }, verdict: 'good' });
    expect(outcome).toEqual({ recorded: true, model: 'qwen3:8b' });
    expect(counted).toEqual(['good:qwen3:8b']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      kind: 'feedback',
      user: 'U2',
      platform: 'slack',
      thread: key,
      verdict: 'good',
      previous: null,
      model: 'qwen3:8b',
      answer: 'q-model',
      answerMessage: '200.1',
      comment: null,
      job: null,
    });
    expect(auditLineText(lines[0] as never)).toContain('good  qwen3:8b  answer q-model');
  });

  it('keeps one verdict per person per answer: a repeat is not counted, a change is, a comment is written', async () => {
    const { d, lines, counted } = await desk();
    const click = { threadKey: key, answerRef: 'q-model', user: { id: 'U2' } };
    await d.give({ ...click, verdict: 'good' });
    expect(await d.give({ ...click, verdict: 'good' })).toEqual({
      recorded: true,
      model: 'qwen3:8b',
      previous: 'good',
    });
    await d.give({ ...click, verdict: 'bad' });
    await d.give({ ...click, verdict: 'bad', comment: '  the mean\u0007is wrong  ' });
    expect(counted).toEqual(['good:qwen3:8b', 'bad:qwen3:8b']);
    expect(lines.map((l) => [l.verdict, l.previous, l.comment])).toEqual([
      ['good', null, null],
      ['bad', 'good', null],
      ['bad', 'bad', 'the mean is wrong'],
    ]);
  });

  it('refuses an answer the ledger does not hold, or one no model wrote, and writes nothing', async () => {
    const { d, lines, counted } = await desk();
    for (const answerRef of ['999.9', 'q-direct', '300.1']) {
      const outcome = await d.give({ threadKey: key, answerRef, user: { id: 'U2' }, verdict: 'bad' });
      expect(outcome).toMatchObject({ recorded: false, reason: 'unknown_answer' });
    }
    const other = await d.give({ threadKey: `${key}x`, answerRef: '200.1', user: { id: 'U2' }, verdict: 'bad' });
    expect(other).toMatchObject({ recorded: false, reason: 'unknown_answer' });
    expect(lines).toEqual([]);
    expect(counted).toEqual([]);
  });

  it('waits a bounded grace for an answer the ledger records a moment after the click, then gives up', async () => {
    const { d, store, counted } = await desk(1_000);
    const record = (await store.get(key))!;
    setTimeout(() => {
      const late = { questionId: 'q-late', userId: 'U1', text: 'sum?', answerIds: ['400.1'], atMs: 3, model: 'm2' };
      void store.put(key, { ...record, answers: [...record.answers!, late] }, 60_000);
    }, 300);
    const startedAt = Date.now();
    const late = await d.give({ threadKey: key, answerRef: '400.1', user: { id: 'U2' }, verdict: 'good' });
    expect(late).toEqual({ recorded: true, model: 'm2' });
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    const waitedFrom = Date.now();
    const never = await d.give({ threadKey: key, answerRef: '999.9', user: { id: 'U2' }, verdict: 'good' });
    expect(never).toMatchObject({ recorded: false, reason: 'unknown_answer' });
    expect(Date.now() - waitedFrom).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - waitedFrom).toBeLessThan(1_500);
    expect(counted).toEqual(['good:m2']);
  });

  it('cuts a long comment to 500 characters', async () => {
    const { d, lines } = await desk();
    await d.give({
      threadKey: key,
      answerRef: 'q-model',
      user: { id: 'U3' },
      verdict: 'bad',
      comment: 'x'.repeat(5000),
    });
    expect(lines[0]!.comment).toHaveLength(500);
    expect(lines[0]!.comment!.endsWith('…')).toBe(true);
  });
});

describe('VerdictMemory', () => {
  it('forgets the verdict given longest ago past its bound', () => {
    const memory = new VerdictMemory(3);
    for (const k of ['a', 'b', 'c']) memory.set(k, 'good');
    expect(memory.set('a', 'bad')).toBe('good'); // a is now the newest
    memory.set('d', 'good');
    expect(memory.size).toBe(3);
    expect(memory.set('b', 'good')).toBeUndefined(); // b was forgotten
    expect(memory.set('a', 'good')).toBe('bad');
  });
});
