import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected loadConfig to throw');
}

describe('egress configuration', () => {
  it('is off (no egress section) unless THREADLAB_EGRESS_ALLOW lists something', () => {
    expect(loadConfig({}).egress).toBeUndefined();
    expect(loadConfig({ THREADLAB_EGRESS_ALLOW: '  ' }).egress).toBeUndefined();
  });

  it('parses the allowlist, the limits in their units, and resolves credentials from the named variable', () => {
    const config = loadConfig({
      THREADLAB_EGRESS_ALLOW: 'pypi.org, files.pythonhosted.org, api.example.com',
      THREADLAB_EGRESS_CREDENTIALS: 'api.example.com=Authorization:EXAMPLE_API_TOKEN',
      EXAMPLE_API_TOKEN: 'Bearer abc123secret',
      THREADLAB_EGRESS_MAX_CONNECTIONS: '10',
      THREADLAB_EGRESS_MAX_MB: '2',
    });
    expect(config.egress?.allow.map((p) => p.text)).toEqual(['pypi.org', 'files.pythonhosted.org', 'api.example.com']);
    expect(config.egress?.credentials).toEqual([
      { host: 'api.example.com', header: 'Authorization', value: 'Bearer abc123secret' },
    ]);
    expect(config.egress).toMatchObject({ maxConnections: 10, maxBytes: 2 * 1024 * 1024 });
    expect(config.secrets).toEqual(expect.arrayContaining(['Bearer abc123secret', 'abc123secret']));
  });

  it('defaults the limits', () => {
    expect(loadConfig({ THREADLAB_EGRESS_ALLOW: 'pypi.org' }).egress).toMatchObject({
      maxConnections: 128,
      maxBytes: 512 * 1024 * 1024,
      credentials: [],
    });
  });

  it('stops start-up naming the variable for a bad entry, a missing credential or one not allowed', () => {
    expect(configError({ THREADLAB_EGRESS_ALLOW: 'pypi.org, bad host' })).toMatch(
      /THREADLAB_EGRESS_ALLOW: "bad host": expected a host name/,
    );
    expect(
      configError({
        THREADLAB_EGRESS_ALLOW: 'api.example.com',
        THREADLAB_EGRESS_CREDENTIALS: 'api.example.com=Authorization:EXAMPLE_API_TOKEN',
      }),
    ).toContain(
      'THREADLAB_EGRESS_CREDENTIALS: api.example.com takes its Authorization header from EXAMPLE_API_TOKEN, which is not set',
    );
    expect(
      configError({
        THREADLAB_EGRESS_ALLOW: 'pypi.org',
        THREADLAB_EGRESS_CREDENTIALS: 'api.example.com=X-Key:KEY',
        KEY: 'k',
      }),
    ).toContain('api.example.com:443 is not allowed by THREADLAB_EGRESS_ALLOW');
    expect(configError({ THREADLAB_EGRESS_CREDENTIALS: 'api.example.com=X-Key:KEY', KEY: 'k' })).toContain(
      'THREADLAB_EGRESS_CREDENTIALS: needs THREADLAB_EGRESS_ALLOW',
    );
    expect(configError({ THREADLAB_EGRESS_ALLOW: 'a.example', THREADLAB_EGRESS_CREDENTIALS: 'a.example' })).toMatch(
      /THREADLAB_EGRESS_CREDENTIALS: "a.example" should read host=Header-Name:VARIABLE/,
    );
    expect(configError({ THREADLAB_EGRESS_ALLOW: 'a.example', THREADLAB_EGRESS_MAX_MB: '0' })).toMatch(
      /THREADLAB_EGRESS_MAX_MB: expected an integer between 1 and 65536/,
    );
  });
});
