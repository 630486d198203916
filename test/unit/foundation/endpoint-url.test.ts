import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { parseEndpointUrl, redactUrlCredentials } from '../../../src/domain/endpoint-url.js';

describe('endpoint URLs with credentials', () => {
  it('splits user info into basic auth and the query into default parameters, and shows neither', () => {
    const e = parseEndpointUrl(
      'https://alice:p%40ss-w0rd-9@llm.example.test/v1/?key=k3y-secret-value&api-version=2025-01-01',
    );
    expect(e.base).toBe('https://llm.example.test/v1');
    expect(e.query).toEqual({ key: 'k3y-secret-value', 'api-version': '2025-01-01' });
    expect(e.authorization).toBe(`Basic ${Buffer.from('alice:p@ss-w0rd-9').toString('base64')}`);
    expect(e.display).toBe('https://[REDACTED]@llm.example.test/v1?key=[REDACTED]&api-version=2025-01-01');
    expect(e.secrets).toEqual(expect.arrayContaining(['p@ss-w0rd-9', 'p%40ss-w0rd-9', 'k3y-secret-value']));
    expect(e.secrets).not.toContain('alice');
    expect(e.secrets).not.toContain('2025-01-01');
  });

  it('leaves a plain URL as it is', () => {
    const e = parseEndpointUrl('http://127.0.0.1:11434/v1');
    expect(e).toMatchObject({ base: 'http://127.0.0.1:11434/v1', query: {}, authorization: undefined, secrets: [] });
    expect(e.display).toBe('http://127.0.0.1:11434/v1');
  });

  it('redacts URL credentials inside free text', () => {
    const text =
      'fetch failed: http://bob:hunter2@10.0.0.1:8080/v1/chat?token=abc123&x=1 and https://h/v1?api_key=zz#f';
    const out = redactUrlCredentials(text);
    expect(out).not.toMatch(/hunter2|bob:|abc123|zz/);
    expect(out).toContain('http://[REDACTED]@10.0.0.1:8080/v1/chat?token=[REDACTED]&x=1');
  });

  it('the configuration lists the URL secrets for the logger to scrub', () => {
    const config = loadConfig({
      OPENAI_BASE_URL: 'https://u:pw-123456@h.test/v1?key=querykey-1',
      REDIS_URL: 'redis://default:redispass-1@127.0.0.1:6379',
    });
    expect(config.secrets).toEqual(expect.arrayContaining(['pw-123456', 'querykey-1', 'redispass-1']));
    expect(config.secrets).not.toContain('default');
  });
});
