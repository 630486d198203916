import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { ThreadlabError } from '../../../src/domain/errors.js';

function configError(env: Record<string, string>): ThreadlabError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ThreadlabError);
    return err as ThreadlabError;
  }
  throw new Error('expected loadConfig to throw');
}

describe('configuration', () => {
  it('starts on the embedded default with nothing set', () => {
    const config = loadConfig({});
    expect(config.web.enabled).toBe(true);
    expect(config.slack.enabled).toBe(false);
    expect(config.discord.enabled).toBe(false);
    expect(config.llm.configured).toBe(false);
    expect(config.sandbox.memoryMb).toBe(1024);
    expect(config.web.host).toBe('127.0.0.1');
  });

  it('parks up to 4 × THREADLAB_CONCURRENCY turns unless THREADLAB_MAX_PARKED says otherwise (0: none)', () => {
    expect(loadConfig({}).queue.maxParked).toBe(16);
    expect(loadConfig({ THREADLAB_CONCURRENCY: '2' }).queue.maxParked).toBe(8);
    expect(loadConfig({ THREADLAB_CONCURRENCY: '2', THREADLAB_MAX_PARKED: '0' }).queue.maxParked).toBe(0);
    expect(loadConfig({ THREADLAB_MAX_PARKED: '3' }).queue.maxParked).toBe(3);
    expect(configError({ THREADLAB_MAX_PARKED: '-1' }).message).toMatch(/THREADLAB_MAX_PARKED: expected an integer/);
  });

  it('makes idle kernels lean after THREADLAB_SANDBOX_KERNEL_IDLE_MS: 60 s by default, 0 off, else at least 1 s', () => {
    expect(loadConfig({}).sandbox.kernelIdleMs).toBe(60_000);
    expect(loadConfig({ THREADLAB_SANDBOX_KERNEL_IDLE_MS: '0' }).sandbox.kernelIdleMs).toBe(0);
    expect(loadConfig({ THREADLAB_SANDBOX_KERNEL_IDLE_MS: '1000' }).sandbox.kernelIdleMs).toBe(1000);
    expect(configError({ THREADLAB_SANDBOX_KERNEL_IDLE_MS: '500' }).message).toContain(
      'THREADLAB_SANDBOX_KERNEL_IDLE_MS: expected 0 (off) or at least 1000 ms (got "500")',
    );
    const negative = configError({ THREADLAB_SANDBOX_KERNEL_IDLE_MS: '-1' }).message;
    expect(negative).toMatch(/THREADLAB_SANDBOX_KERNEL_IDLE_MS: expected an integer between 0 and \d+ \(got "-1"\)/);
    expect(negative).not.toContain('at least 1000 ms');
    expect(configError({ THREADLAB_SANDBOX_KERNEL_IDLE_MS: '1m' }).message).toMatch(
      /THREADLAB_SANDBOX_KERNEL_IDLE_MS: expected an integer/,
    );
  });

  it('names the variable and what is expected for a bad number', () => {
    const err = configError({ THREADLAB_SANDBOX_MEMORY_MB: 'lots' });
    expect(err.code).toBe('config_invalid');
    expect(err.message).toMatch(/THREADLAB_SANDBOX_MEMORY_MB: expected an integer between 64 and \d+ \(got "lots"\)/);
  });

  it('reports every bad variable at once, and hides secret values', () => {
    const err = configError({
      SLACK_BOT_TOKEN: 'not-a-token-at-all',
      OPENAI_BASE_URL: 'localhost:1234',
      THREADLAB_WEB_PORT: '70000',
    });
    expect(err.message).toContain('SLACK_BOT_TOKEN: expected a bot token starting with "xoxb-" (value hidden)');
    expect(err.message).not.toContain('not-a-token-at-all');
    expect(err.message).toContain('OPENAI_BASE_URL: expected an absolute http(s) URL');
    expect(err.message).toContain('THREADLAB_WEB_PORT');
  });

  it('requires the tokens that the chosen Slack mode needs', () => {
    const socket = configError({ SLACK_BOT_TOKEN: 'xoxb-1234567890-abcdef' });
    expect(socket.message).toContain('SLACK_APP_TOKEN: required in Socket Mode');
    const http = configError({ SLACK_BOT_TOKEN: 'xoxb-1234567890-abcdef', THREADLAB_SLACK_MODE: 'http' });
    expect(http.message).toContain('SLACK_SIGNING_SECRET: required in HTTP mode');
  });

  it('requires an access token when the web chat binds beyond loopback', () => {
    expect(configError({ THREADLAB_WEB_HOST: '0.0.0.0' }).message).toContain('THREADLAB_WEB_TOKEN: required');
    expect(configError({ THREADLAB_WEB_HOST: '128.0.0.1' }).message).toContain('THREADLAB_WEB_TOKEN: required');
    // Loopback is one rule with the web chat's own check (src/domain/loopback.ts): all of 127.0.0.0/8 and ::1.
    for (const host of ['127.0.0.2', 'localhost', '::1', '[::1]'])
      expect(loadConfig({ THREADLAB_WEB_HOST: host }).web.host).toBe(host);
    expect(loadConfig({ THREADLAB_WEB_HOST: '0.0.0.0', THREADLAB_WEB_TOKEN: 'a'.repeat(20) }).web.token).toBe(
      'a'.repeat(20),
    );
  });

  it('turns the web chat off by default once a platform is configured, and collects secrets', () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1234567890-abcdef',
      SLACK_APP_TOKEN: 'xapp-1-A111-222-abcdef',
      OPENAI_API_KEY: 'sk-test-0123456789abcdef',
      REDIS_URL: 'redis://:hunter2pass@127.0.0.1:6379',
    });
    expect(config.slack.enabled).toBe(true);
    expect(config.web.enabled).toBe(false);
    expect(config.secrets).toEqual(
      expect.arrayContaining([
        'xoxb-1234567890-abcdef',
        'xapp-1-A111-222-abcdef',
        'sk-test-0123456789abcdef',
        'hunter2pass',
      ]),
    );
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ OPENAI_MODEL: '', THREADLAB_SANDBOX_CPUS: ' ' }).llm.model).toBe('gpt-4.1-mini');
  });
});
