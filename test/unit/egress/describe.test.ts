import { describe, expect, it } from 'vitest';
import { EgressGateway } from '../../../src/egress/gateway.js';
import { parseAllowlist } from '../../../src/egress/policy.js';
import { createLogger } from '../../../src/logger.js';

const gateway = (allow: string, credentials: Array<{ host: string; port?: number }> = []) =>
  new EgressGateway({
    allow: parseAllowlist(allow),
    credentials: credentials.map((c) => ({ ...c, header: 'Authorization', value: 'Bearer never-shown' })),
    maxConnections: 1,
    maxBytes: 1,
    logger: createLogger({ level: 'silent' }),
  });

describe('egress gateway: what the system prompt is told', () => {
  it('lists the allowed entries and says installs work only when every host of an index is allowed', () => {
    expect(gateway('pypi.org, files.pythonhosted.org, api.example.com').describe()).toEqual({
      allowed: ['pypi.org', 'files.pythonhosted.org', 'api.example.com'],
      packageIndexes: ['PyPI (pip install)'],
      credentialed: [],
    });
    expect(gateway('pypi.org').describe().packageIndexes).toEqual([]);
    expect(gateway('pypi.org:80, files.pythonhosted.org').describe().packageIndexes).toEqual([]);
    expect(gateway('*').describe().packageIndexes).toEqual(['PyPI (pip install)']);
  });

  it('names the destinations that get credentials, never the values', () => {
    const described = gateway('api.example.com, 127.0.0.1:8443', [
      { host: 'api.example.com' },
      { host: '127.0.0.1', port: 8443 },
    ]).describe();
    expect(described.credentialed).toEqual(['api.example.com', '127.0.0.1:8443']);
    expect(JSON.stringify(described)).not.toContain('never-shown');
  });
});
