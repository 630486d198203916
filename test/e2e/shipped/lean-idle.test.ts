/**
 * Idle kernels go lean in the shipped process: `threadlab start` (web chat only) with
 * THREADLAB_SANDBOX_KERNEL_IDLE_MS=1000 replaces the Python kernel of a thread idle that long with its variables
 * saved; the thread keeps its container, which gives the data stack's memory back, and the next message finds its
 * variables and files, the answer saying why they were restored.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { containerPrivateMib } from '../../../cli/bench/sandbox-memory.js';
import { docker, isThreadContainer } from '../roles/containers.js';
import { waitUntil } from '../roles/processes.js';
import { pythonBlock } from '../roles/slack-thread.js';
import { ShippedBot } from './shipped-bot.js';
import { WebClientForTests } from './web-client.js';

const ENV = {
  THREADLAB_SANDBOX_KERNEL_IDLE_MS: '1000',
  THREADLAB_STATE_SAVE_DELAY_MS: '0',
  THREADLAB_SANDBOX_POOL_SIZE: '1',
  THREADLAB_SANDBOX_POOL_MAX: '1',
};

const bot = new ShippedBot({ web: true, runtimeAsShipped: true });
const web = new WebClientForTests(() => bot.webUrl);

afterAll(async () => {
  await bot.cleanup();
}, 60_000);

async function threadContainer(): Promise<string> {
  const found = (await bot.containers()).filter((c) => isThreadContainer(c) && c.state === 'running');
  expect(found).toHaveLength(1);
  return found[0]!.id;
}

const mib = (id: string): Promise<number> => containerPrivateMib(docker, id);

describe('threadlab start with THREADLAB_SANDBOX_KERNEL_IDLE_MS', () => {
  it('an idle thread keeps its container, gives its memory back, and has its variables and files at its next message', async () => {
    await bot.start(ENV);
    const thread = await web.createThread();
    await web.post(thread, {
      text: pythonBlock(
        [
          'import os, pandas as pd, numpy as np',
          'df = pd.DataFrame({"v": np.arange(1_000_000)})',
          'open("kept.txt", "w").write("still here")',
          'pid = os.getpid()',
          'print("sum", int(df.v.sum()))',
        ].join('\n'),
      ),
    });
    expect((await web.nthAnswer(thread, 0)).text).toContain('sum 499999500000');
    const id = await threadContainer();
    // The kernel goes once the thread has been idle a second with its variables saved.
    const lean = await waitUntil(async () => ((await mib(id)) <= 70 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'the thread container to go lean',
      intervalMs: 250,
    });
    expect(lean).toBe(true);

    await web.post(thread, {
      text: pythonBlock('print("again", int(df.v.sum()), open("kept.txt").read(), pid != os.getpid())'),
    });
    const answer = await web.nthAnswer(thread, 1);
    expect(answer.text).toContain('again 499999500000 still here True');
    expect(answer.text).toMatch(/Restored \d+ variables? saved at .*idle for .*replaced by a lean one/);
    expect(answer.text).not.toContain('Variables were reset');
    expect(await threadContainer()).toBe(id);
  });
});
