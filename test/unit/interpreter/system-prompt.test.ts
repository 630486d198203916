import { describe, expect, it } from 'vitest';
import type { SandboxEnvironment } from '../../../src/domain/execution.js';
import { buildSystemPrompt } from '../../../src/interpreter/system-prompt.js';

function prompt(durableVariables: boolean | undefined): string {
  const environment: SandboxEnvironment = {
    imageVersion: 'test',
    python: '3.13',
    packages: { pandas: '2.2' },
    limits: {
      memoryMb: 1024,
      cpus: 1,
      timeoutMs: 60_000,
      dataMb: 512,
      maxFileMb: 100,
      network: false,
      ...(durableVariables === undefined ? {} : { durableVariables }),
    },
  };
  return buildSystemPrompt({ environment, files: [], previews: [], uploaded: [], trimmedEntries: 0 });
}

describe('the system prompt on variables', () => {
  it('promises variables across a recycle only where they are saved (THREADLAB_STATE_MAX_MB > 0)', () => {
    expect(prompt(true)).toContain('also when the sandbox is recycled, except objects that cannot be pickled');
    expect(prompt(false)).not.toContain('recycled');
    expect(prompt(false)).toContain('a tool result says when they were lost');
    expect(prompt(undefined)).not.toContain('recycled');
  });
});
