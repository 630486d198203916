import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebChatAdapter } from '../../../adapters/web/index.js';
import { ThreadlabError } from '../../../src/domain/errors.js';
import { createLogger } from '../../../src/logger.js';
import type { InboundHandler, InboundOutcome } from '../../../src/ports/platform-adapter.js';

/** A core that fails or refuses as told, the way the Bot does when Redis is down or a limit is hit. */
class FailingCore implements InboundHandler {
  next: 'redis_down' | 'refuse' | 'accept' = 'accept';
  async onMessage(): Promise<InboundOutcome> {
    if (this.next === 'redis_down') {
      throw new ThreadlabError('redis_unreachable', 'connect ECONNREFUSED 10.1.2.3:6379 (redis://admin@10.1.2.3)', {
        isRetryable: true,
      });
    }
    if (this.next === 'refuse') {
      return { accepted: false, reason: 'queue_full', retryAfterMs: 5000, message: 'Too busy, try in a minute.' };
    }
    return { accepted: true };
  }
  async onCancel(): Promise<void> {}
}

describe('web API failures', () => {
  let dataDir: string;
  let adapter: WebChatAdapter;
  const core = new FailingCore();
  const logLines: string[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'threadlab-web-errors-'));
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    adapter = new WebChatAdapter({ port: 0, dataDir, logger: createLogger({ level: 'info', destination: sink }) });
    await adapter.start(core);
  });
  afterAll(async () => {
    await adapter?.stop();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); // a scripted reply may still be landing
  });

  const post = async (id: string) => {
    const res = await fetch(`${adapter.url}/api/threads/${id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello' }),
    });
    return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
  };
  const messages = async (id: string) =>
    ((await (await fetch(`${adapter.url}/api/threads/${id}/messages`)).json()) as { messages: unknown[] }).messages;

  it('answers an infrastructure failure with its code and a safe message, logs the detail once, stores nothing', async () => {
    const { thread } = (await (await fetch(`${adapter.url}/api/threads`, { method: 'POST' })).json()) as {
      thread: { id: string };
    };
    core.next = 'redis_down';
    const res = await post(thread.id);
    expect(res.status).toBe(503);
    expect(res.body.error?.code).toBe('redis_unreachable');
    expect(res.body.error?.message).not.toMatch(/10\.1\.2\.3|ECONNREFUSED|admin/);
    expect(logLines.filter((l) => l.includes('ECONNREFUSED 10.1.2.3'))).toHaveLength(1);
    expect(await messages(thread.id)).toEqual([]);

    core.next = 'refuse';
    expect(await post(thread.id)).toMatchObject({ status: 503, body: { error: { code: 'queue_full' } } });
    expect(await messages(thread.id)).toEqual([]);
    core.next = 'accept';
    expect((await post(thread.id)).status).toBe(202);
    expect(await messages(thread.id)).toHaveLength(1);
  });
});
