import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { threadHash } from '../../../src/domain/thread-key.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { sandboxContainers } from '../roles/containers.js';
import { waitUntil } from '../roles/processes.js';
import { AbuseBot } from './abuse-bot.js';

// DELETE /api/threads/:id promises the thread's files are deleted: its container and the host copies
// of its files must be gone when it answers, not when they would have expired.
describe('deleting a web thread on the shipped bot', () => {
  const bot = new AbuseBot();

  beforeAll(() => bot.start());
  afterAll(() => bot.cleanup());
  afterEach(async () => {
    expect(await bot.health()).toBeLessThan(1000);
  });

  const session = (id: string) =>
    threadHash(threadKey({ platform: 'web', workspace: 'local', channel: 'web', thread: id }));
  // A container taken from the warm pool keeps the pool's labels, so the thread's container is told
  // apart by counting: the pool (one container) plus the thread's, then the pool alone again.
  const running = async () =>
    (await sandboxContainers([bot.process.pid])).filter((c) => c.state === 'running').map((c) => c.id);
  const settled = async (count: number) => {
    await waitUntil(async () => (await running()).length === count, { timeoutMs: 60_000, what: `${count} containers` });
    return running();
  };
  const mirror = (id: string) => join(bot.dataDir, 'sandbox-files', session(id));
  const post = async (id: string, code: string) => {
    const res = await bot.json('POST', `/api/threads/${id}/messages`, { text: `\`\`\`python\n${code}\n\`\`\`` });
    expect(res.status).toBe(202);
  };
  const botReplies = async (id: string) =>
    ((await bot.json('GET', `/api/threads/${id}/messages`)).body.messages as { role: string }[]).filter(
      (m) => m.role === 'bot',
    ).length;

  it('removes the container and the host copies of the files of a deleted thread', async () => {
    const id = (await bot.json('POST', '/api/threads', {})).body.thread.id as string;
    await post(id, "open('/mnt/data/kept.txt', 'w').write('x' * 1000)\nprint('written')");
    await waitUntil(async () => (await botReplies(id)) === 1, { timeoutMs: 60_000, what: 'the reply' });
    const before = await settled(2);
    expect(await readdir(mirror(id), { recursive: true })).toContain('kept.txt');

    expect((await bot.json('DELETE', `/api/threads/${id}`)).status).toBe(204);
    const after = await running();
    expect(after).toHaveLength(1);
    expect(before).toEqual(expect.arrayContaining(after));
    await expect(readdir(mirror(id))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('stops a running job of a deleted thread and leaves no container behind it', async () => {
    const id = (await bot.json('POST', '/api/threads', {})).body.thread.id as string;
    await post(id, "open('/mnt/data/a.txt', 'w').write('a')\nimport time\ntime.sleep(60)");
    const before = await settled(2);
    await new Promise((r) => setTimeout(r, 1000)); // the code is sleeping now
    expect((await bot.json('DELETE', `/api/threads/${id}`)).status).toBe(204);
    const after = await running();
    expect(after).toHaveLength(1);
    expect(before).toEqual(expect.arrayContaining(after));
    // nothing the stopped job does afterwards starts a session again
    await new Promise((r) => setTimeout(r, 3000));
    expect(await running()).toEqual(after);
    await expect(readdir(mirror(id))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await bot.json('GET', `/api/threads/${id}`)).status).toBe(404);
  });
});
