import type { ExecutionResult, Language } from '../../../src/domain/execution.js';
import type { TurnRun } from '../../../src/interpreter/turn.js';

/** An 8-byte PNG signature in base64: a chart's bytes as a display carries them. */
export const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

/** A run of `code` that succeeded silently unless `result` says otherwise. */
export function run(code: string, result: Partial<ExecutionResult> = {}, language: Language = 'python'): TurnRun {
  return {
    language,
    code,
    result: {
      status: 'ok',
      stdout: '',
      stderr: '',
      displays: [],
      artifacts: [],
      durationMs: 1,
      executionCount: 1,
      ...result,
    },
  };
}

/** The export time every notebook of these tests is stamped with. */
export const at = new Date('2026-01-02T03:04:05Z');
