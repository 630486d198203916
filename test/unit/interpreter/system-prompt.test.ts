import { describe, expect, it } from 'vitest';
import type { SandboxEnvironment } from '../../../src/domain/execution.js';
import { buildSystemPrompt } from '../../../src/interpreter/system-prompt.js';

function prompt(
  durableVariables: boolean | undefined,
  network: SandboxEnvironment['limits']['network'] = false,
): string {
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
      network,
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

  it('says there is no network, or exactly what the gateway allows, whether pip can install and how credentials work', () => {
    expect(prompt(true)).toContain('No network access: downloads and pip install fail.');
    const open = prompt(true, {
      allowed: ['pypi.org', 'files.pythonhosted.org', 'api.example.com'],
      packageIndexes: ['PyPI (pip install)'],
      credentialed: ['api.example.com'],
    });
    expect(open).not.toContain('No network access');
    expect(open).toContain('only pypi.org, files.pythonhosted.org, api.example.com can be reached');
    expect(open).toContain('naming THREADLAB_EGRESS_ALLOW');
    expect(open).toContain('pip install works against PyPI (pip install); installed packages land in /mnt/data/.local');
    expect(open).toContain('api.example.com: use http:// URLs; the gateway connects over TLS and adds the credentials');
    const apiOnly = prompt(true, { allowed: ['api.example.com'], packageIndexes: [] });
    expect(apiOnly).toContain('pip install cannot reach a package index.');
    expect(apiOnly).not.toContain('credentials');
  });
});
