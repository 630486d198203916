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
});
