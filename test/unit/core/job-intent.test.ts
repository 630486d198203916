import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import { jobOf } from '../../../adapters/redis/thread-drainer.js';
import { loadConfig } from '../../../src/config/index.js';
import { PlatformAdapters } from '../../../src/platforms/platform-adapters.js';
import { ThreadlabGovernance } from '../../../src/governance/governance.js';
import { ThreadWorker } from '../../../src/core/thread-worker.js';
import type { Intent } from '../../../src/domain/intent.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import { createLogger } from '../../../src/logger.js';
import type { Job } from '../../../src/ports/job-queue.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });

const message = (text: string): InboundMessage => ({
  id: `m-${text.length}-${Math.random()}`,
  thread: { platform: 'web', workspace: 'local', channel: 'web', thread: 't1' },
  user: { id: 'u1' },
  text,
  attachments: [],
  receivedAtMs: Date.now(),
});

const job = (m: InboundMessage, intent?: Intent): Job => ({
  id: m.id,
  threadKey: 'web:local:web:t1',
  message: m,
  attempt: 1,
  enqueuedAtMs: Date.now(),
  ...(intent ? { intent } : {}),
});

function worker() {
  const adapter = new RecordingAdapter('web');
  const sandbox = new FakeSandbox();
  const threadWorker = new ThreadWorker({
    config: loadConfig({}),
    logger,
    sandbox,
    store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
    renderer: new SharpArtifactRenderer(),
    adapters: new PlatformAdapters([adapter]),
    governance: new ThreadlabGovernance({ config: loadConfig({}), logger }),
  });
  return { adapter, sandbox, threadWorker };
}

const signal = new AbortController().signal;

describe('the intent on the job', () => {
  it('the worker acts on the intent the job carries, read once when the message arrived', async () => {
    const { adapter, sandbox, threadWorker } = worker();
    await threadWorker.process(job(message('```python\nprint(1)\n```'), { kind: 'help' }), { signal });
    expect((await adapter.nextReply()).reply.text).toContain('`Help` shows this');
    expect(sandbox.calls.filter((c) => c.method === 'run')).toHaveLength(0);
  });

  it('a job without one (queued by an older version) is read from its message when it runs', async () => {
    const { adapter, sandbox, threadWorker } = worker();
    await threadWorker.process(job(message('```python\nprint(1)\n```')), { signal });
    await adapter.nextReply();
    expect(sandbox.calls.filter((c) => c.method === 'run')).toHaveLength(1);
  });

  it('a stored intent that is not one is dropped, so the worker reads the message instead', () => {
    const m = message('hello');
    const o = { id: m.id, threadKey: 'web:local:web:t1', attempt: 1 };
    const run = { kind: 'run', language: 'python', code: 'print(1)' } as const;
    expect(jobOf({ message: m, intent: run, enqueuedAtMs: 1 }, o).intent).toEqual(run);
    expect(jobOf({ message: m, enqueuedAtMs: 1 }, o)).not.toHaveProperty('intent');
    for (const forged of [{ kind: 'rm' }, { kind: 'run', language: 'cobol', code: 'x' }, { kind: 'ask' }, 'help', null])
      expect(jobOf({ message: m, intent: forged as unknown as Intent, enqueuedAtMs: 1 }, o)).not.toHaveProperty(
        'intent',
      );
  });
});
