/**
 * `threadlab start` as a process, at start-up: a refused credential ends it with a clear message and no
 * container left behind; the Slack HTTP receiver listens where THREADLAB_SLACK_HOST says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../support/redis-server.js';
import { containersCreatedBy, sandboxContainers } from '../roles/containers.js';
import { waitUntil, type ThreadlabProcess } from '../roles/processes.js';
import { listeningAddresses } from './listening.js';
import { ShippedBot } from './shipped-bot.js';

let bot: ShippedBot | undefined;

afterEach(async () => {
  await bot?.cleanup();
  bot = undefined;
}, 60_000);

/** The exit of `p`, or a failure naming what it printed if it is still running after `timeoutMs`. */
async function exitWithin(p: ThreadlabProcess, timeoutMs: number): Promise<{ code: number | null }> {
  const timedOut = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new Error(`still running ${timeoutMs} ms after a failed start:\n${p.output()}`)),
      timeoutMs,
    ).unref(),
  );
  return Promise.race([p.exited, timedOut]);
}

describe('a start-up that fails', () => {
  it('Slack refusing the token (invalid_auth): exits 1, says what to fix, removes its warm container', async () => {
    bot = new ShippedBot({ slack: true });
    await bot.startFakes();
    // Answered late, so the warm pool has started its container before the failure.
    bot.slack.failNext('auth.test', { status: 200, error: 'invalid_auth', delayMs: 4000 });
    const since = Date.now();
    const p = await bot.spawn({ THREADLAB_SANDBOX_POOL_SIZE: '1' });
    const exit = await exitWithin(p, 30_000);
    expect(exit.code, p.output()).toBe(1);
    expect(p.output()).toContain('SLACK_BOT_TOKEN was refused');
    expect(p.output()).toContain('invalid_auth');
    expect(p.output()).not.toContain('Threadlab is running');
    // The pool did make a container, and none is left: not running, not stopped.
    expect(await containersCreatedBy(p.pid, since)).not.toHaveLength(0);
    expect(await sandboxContainers([p.pid])).toEqual([]);
  });
});

describe('the Slack HTTP receiver address (THREADLAB_SLACK_HOST)', () => {
  const httpMode = async (host?: string): Promise<number> => {
    bot = new ShippedBot({ slack: true });
    await bot.startFakes();
    const port = await freePort();
    await bot.spawn({
      THREADLAB_SLACK_MODE: 'http',
      SLACK_SIGNING_SECRET: '8f742231b10e8888abcd99aaaaaa85a5',
      THREADLAB_SLACK_PORT: String(port),
      THREADLAB_SANDBOX_POOL_SIZE: '0',
      ...(host ? { THREADLAB_SLACK_HOST: host } : {}),
    });
    await bot.process.ready(60_000);
    await waitUntil(() => listeningAddresses(port).length > 0, { timeoutMs: 5000, what: `a listener on ${port}` });
    return port;
  };

  it('127.0.0.1: listens on loopback only', async () => {
    const port = await httpMode('127.0.0.1');
    expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
  });

  it('unset: listens on all interfaces, as Slack must reach it', async () => {
    const port = await httpMode();
    expect(listeningAddresses(port)).toEqual(expect.arrayContaining([expect.stringMatching(/^(::|0\.0\.0\.0)$/)]));
  });
});
