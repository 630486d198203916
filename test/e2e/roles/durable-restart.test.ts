/**
 * Durable threads across a restart of the shipped process: `threadlab start` (web chat only) is stopped with
 * SIGTERM as a service manager does, saves the thread's variables on the way out, and the next `threadlab start`
 * on the same THREADLAB_DATA_DIR loads them into the thread's new container and says so in the answer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ShippedBot } from '../shipped/shipped-bot.js';
import { WebClientForTests } from '../shipped/web-client.js';
import { sandboxContainers } from './containers.js';
import { pythonBlock } from './slack-thread.js';

const log = (line: string) => process.stderr.write(`[durable restart] ${line}\n`);
// A save delay longer than the test: the only save that can land is the one SIGTERM makes on the way out.
const ENV = { THREADLAB_STATE_SAVE_DELAY_MS: '600000' };

const bot = new ShippedBot({ web: true, runtimeAsShipped: true });
const web = new WebClientForTests(() => bot.webUrl);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

describe('SIGTERM of threadlab start, then a new threadlab start on the same data dir', () => {
  it('the thread has its variable back, and the answer says it was restored and when it was saved', async () => {
    await bot.start(ENV);
    const thread = await web.createThread();
    await web.post(thread, { text: pythonBlock('x = 41\nprint("set")') });
    expect((await web.nthAnswer(thread, 0)).text).toContain('set');

    const first = bot.process;
    const sentAt = Date.now();
    first.child.kill('SIGTERM');
    const exit = await first.exited;
    log(`SIGTERM → exit in ${exit.atMs - sentAt} ms (code ${exit.code})`);
    expect({ code: exit.code, signal: exit.signal }, first.output()).toEqual({ code: 0, signal: null });
    expect(await sandboxContainers([first.pid])).toEqual([]);

    const startedAt = Date.now();
    await bot.spawn(ENV);
    await bot.process.ready(120_000);
    log(`restarted in ${Date.now() - startedAt} ms`);
    const askedAt = Date.now();
    await web.post(thread, { text: pythonBlock('print(x + 1)') });
    const answer = await web.nthAnswer(thread, 1);
    log(`answered ${Date.now() - askedAt} ms after the first message to the new process`);
    expect(answer.text).toContain('42');
    expect(answer.text).toMatch(
      /Restored 1 variable saved at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(the bot restarted or another worker took the thread over\)/,
    );
    expect(answer.text).not.toContain('Variables were reset');
  });
});
