import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src/domain/execution.js';
import { formatToolResult } from '../../../src/interpreter/tool-result.js';

const base: ExecutionResult = {
  status: 'ok',
  stdout: 'done\n',
  stderr: '',
  displays: [],
  artifacts: [],
  durationMs: 5,
  executionCount: 1,
};

describe('formatToolResult', () => {
  it('tells the model that processes left running were stopped, and why it should not rely on them', () => {
    const text = formatToolResult({ ...base, stoppedProcesses: 3 });
    expect(text).toContain(
      'note: 3 processes the run left running (in the background, detached or setsid) were stopped',
    );
    expect(text).toContain('nothing outlives its run');
    expect(formatToolResult({ ...base, stoppedProcesses: 1 })).toContain('1 process the run left running');
    expect(formatToolResult(base)).not.toContain('left running');
  });

  it('says a replaced kernel lost its variables but kept the files', () => {
    const text = formatToolResult({
      ...base,
      status: 'killed',
      killReason: 'crash',
      stateReset: { reason: 'the Python process was killed by SIGSEGV; a new one was started in the same sandbox' },
    });
    expect(text).toContain('The run was killed (crash)');
    expect(text).toContain('SIGSEGV; a new one was started');
  });

  it('tells the model which variables came back in a new sandbox, from when, and which did not', () => {
    const text = formatToolResult({
      ...base,
      stateRestored: {
        reason: 'the session was idle for 1 h',
        savedAt: '2026-11-23T10:02:41.123Z',
        variables: 14,
        notRestored: ['conn (sqlite3.Connection)', 'it (generator)'],
      },
    });
    expect(text).toContain(
      'restored 14 variables saved at 2026-11-23 10:02 UTC (the session was idle for 1 h); not restored: conn (sqlite3.Connection), it (generator)',
    );
    expect(text).toContain('must be recreated');
    expect(formatToolResult(base)).not.toContain('restored');
  });

  it('warns the model when the variables could not be saved', () => {
    const text = formatToolResult({ ...base, stateNotSaved: { reason: 'they take more than 256 MiB saved' } });
    expect(text).toContain(
      'note: the variables after the previous run were not saved: they take more than 256 MiB saved',
    );
  });

  it('tells the model about installed packages as a count, not file by file', () => {
    const file = (path: string, bytes: number) => ({ path, bytes, mime: 'text/x-python', change: 'created' as const });
    const text = formatToolResult({
      ...base,
      artifacts: [
        ...Array.from({ length: 300 }, (_, i) => file(`.local/lib/python3.13/site-packages/tiny/m${i}.py`, 100)),
        file('report.csv', 2048),
      ],
    });
    expect(text).toContain('installed packages: 300 files (29.3 KB) under /mnt/data/.local');
    expect(text).toContain('- /mnt/data/report.csv (created');
    expect(text).not.toContain('m17.py');
  });
});
