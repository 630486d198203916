import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const LIBRARIES = ['discord.js', '@slack/bolt', 'bullmq', 'ioredis'] as const;

/**
 * Builds the adapters and the shared state from `env` in a fresh process, the way `threadlab start` does, and says
 * which of the platform and Redis client libraries that process loaded (they are CommonJS: Node's require cache
 * holds every file of them that was loaded, also through an ESM import).
 */
function librariesLoaded(env: Record<string, string>): Record<(typeof LIBRARIES)[number], boolean> {
  const script = `
    import { createRequire } from 'node:module';
    const { createAdapters, createRenderer, sharedState } = await import('./app/index.ts');
    const { loadConfig } = await import('./src/config/index.ts');
    const config = loadConfig(${JSON.stringify(env)});
    await createAdapters(config, (await import('./src/logger.ts')).createLogger({ level: 'silent' }), createRenderer(config));
    await sharedState(config);
    const files = Object.keys(createRequire(import.meta.url).cache);
    const names = ${JSON.stringify(LIBRARIES)};
    console.log(JSON.stringify(Object.fromEntries(names.map((n) => [n, files.some((f) => f.includes('/node_modules/' + n + '/'))]))));
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (child.status !== 0) throw new Error(`the process failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!);
}

describe('a process loads only the platforms and state it is configured for', () => {
  it('the web chat alone, without Redis: no discord.js, Bolt, BullMQ or ioredis', () => {
    expect(librariesLoaded({ THREADLAB_WEB_ENABLED: 'true' })).toEqual({
      'discord.js': false,
      '@slack/bolt': false,
      bullmq: false,
      ioredis: false,
    });
  }, 60_000);

  it('Slack with Redis: Bolt, BullMQ and ioredis, still no discord.js', () => {
    expect(
      librariesLoaded({
        SLACK_BOT_TOKEN: 'xoxb-1234567890-abcdef',
        SLACK_APP_TOKEN: 'xapp-1234567890-abcdef',
        THREADLAB_WEB_ENABLED: 'false',
        REDIS_URL: 'redis://127.0.0.1:1',
      }),
    ).toEqual({ 'discord.js': false, '@slack/bolt': true, bullmq: true, ioredis: true });
  }, 60_000);
});
