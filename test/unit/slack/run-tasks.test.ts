import { describe, expect, it } from 'vitest';
import { MAX_STREAM_TASKS, RunTasks } from '../../../adapters/slack/run-tasks.js';
import { SurfaceSupport } from '../../../adapters/slack/surface-support.js';
import { createLogger } from '../../../src/logger.js';

const code = (round: number, text = `print(${round})`) =>
  ({ type: 'code', round, language: 'python', code: text }) as const;

describe('RunTasks (task cards of the Slack stream)', () => {
  it('one card per code run, sent once per state, ending in the run outcome', () => {
    const tasks = new RunTasks();
    expect(tasks.apply({ type: 'thinking', round: 1 })).toBe(false);
    expect(tasks.apply(code(1))).toBe(true);
    const first = tasks.pending();
    expect(first).toEqual([
      { type: 'task_update', id: 'run-1', title: 'Run 1: python', status: 'in_progress', details: 'print(1)' },
    ]);
    tasks.markSent(first);
    expect(tasks.pending()).toEqual([]);
    tasks.apply({ type: 'output', stream: 'stdout', text: '1\n' });
    tasks.apply({ type: 'run_finished', status: 'ok', durationMs: 5 });
    tasks.apply(code(2));
    tasks.apply({ type: 'run_finished', status: 'timeout', durationMs: 5 });
    const next = tasks.pending();
    expect(next.map((c) => [c.id, c.status, c.output])).toEqual([
      ['run-1', 'complete', '1\n'],
      ['run-2', 'error', undefined],
    ]);
  });

  it('a card changed again after it was sent is sent again', () => {
    const tasks = new RunTasks();
    tasks.apply(code(1));
    const sent = tasks.pending();
    tasks.apply({ type: 'run_finished', status: 'ok', durationMs: 5 });
    tasks.markSent(sent); // the in-progress state landed; the finished one did not yet
    expect(tasks.pending().map((c) => c.status)).toEqual(['complete']);
  });

  it(`stops adding cards after ${MAX_STREAM_TASKS} runs and says how many more ran`, () => {
    const tasks = new RunTasks();
    for (let i = 1; i <= MAX_STREAM_TASKS + 7; i += 1) {
      tasks.apply(code(i));
      tasks.apply({ type: 'run_finished', status: 'ok', durationMs: 1 });
    }
    expect(tasks.pending()).toHaveLength(MAX_STREAM_TASKS);
    expect(tasks.runs).toBe(MAX_STREAM_TASKS + 7);
    expect(tasks.droppedNote()).toBe('…and 7 more code runs not shown here.');
  });

  it('cuts long code from its end and long output from its start, saying how much', () => {
    const tasks = new RunTasks();
    tasks.apply(code(1, `x = 1\n${'a'.repeat(2000)}`));
    tasks.apply({ type: 'output', stream: 'stdout', text: `${'b'.repeat(3000)}LAST` });
    const [card] = tasks.pending();
    expect(card!.details!.length).toBeLessThanOrEqual(500);
    expect(card!.details).toMatch(/^x = 1\n/);
    expect(card!.details).toMatch(/…\d+ more characters$/);
    expect(card!.output!.length).toBeLessThanOrEqual(500);
    expect(card!.output).toMatch(/LAST$/);
  });

  it('a run still in progress at the end is shown as stopped', () => {
    const tasks = new RunTasks();
    tasks.apply(code(1));
    tasks.markSent(tasks.pending());
    expect(tasks.finalChunks()).toEqual([expect.objectContaining({ id: 'run-1', status: 'error' })]);
  });
});

describe('SurfaceSupport', () => {
  const logger = createLogger({ level: 'silent' });

  it('a workspace-level refusal turns the surfaces off for the workspace, any other for the thread', () => {
    const s = new SurfaceSupport({ logger });
    s.refused({ workspace: 'T1', threadKey: 'k1', method: 'chat.startStream', error: 'channel_not_found' });
    expect(s.usable('T1', 'k1')).toBe(false);
    expect(s.usable('T1', 'k2')).toBe(true);
    s.refused({ workspace: 'T1', threadKey: 'k2', method: 'chat.startStream', error: 'unknown_method' });
    expect(s.usable('T1', 'k3')).toBe(false);
    expect(s.usable('T2', 'k4')).toBe(true);
  });

  it('remembers at most maxEntries, forgetting the oldest', () => {
    const s = new SurfaceSupport({ logger, maxEntries: 3 });
    for (let i = 0; i < 5; i += 1)
      s.refused({ workspace: `T${i}`, threadKey: `k${i}`, method: 'x', error: 'missing_scope' });
    expect(s.size.workspaces).toBe(3);
    expect(s.usable('T0', 'z')).toBe(true);
    expect(s.usable('T4', 'z')).toBe(false);
  });
});
