import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import { EventHub } from '../../../adapters/web/event-hub.js';
import { userMessage } from '../../../adapters/web/map-request.js';
import { MessageIntake } from '../../../adapters/web/message-intake.js';
import { WebThreadStore } from '../../../adapters/web/thread-store.js';
import { loadConfig } from '../../../src/config/index.js';
import { Bot } from '../../../src/core/bot.js';
import { ThreadlabGovernance } from '../../../src/governance/governance.js';
import { createLogger } from '../../../src/logger.js';
import { InProcessJobQueue } from '../../../src/queue/in-process-queue.js';
import { DEFAULT_LIMITS } from '../../../src/queue/limits.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });

// The web chat maps typed text as it is; the core reads `/files` as a command and says so, so the
// history marks it and it does not become the thread's title.
describe('typed commands in the web chat history', () => {
  let root: string;
  let bot: Bot;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'threadlab-web-typed-'));
  });
  afterEach(async () => {
    await bot?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('marks a typed /files or /help as the command the core read, and titles the thread by the first question', async () => {
    const store = new WebThreadStore(root);
    await store.init();
    const hub = new EventHub();
    const adapter = new RecordingAdapter('web');
    bot = new Bot({
      governance: new ThreadlabGovernance({ config: loadConfig({}), logger }),
      config: loadConfig({ THREADLAB_SHUTDOWN_TIMEOUT_MS: '200' }),
      logger,
      sandbox: new FakeSandbox(),
      store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
      queue: new InProcessJobQueue({ logger, limits: DEFAULT_LIMITS }),
      renderer: new SharpArtifactRenderer(),
      adapters: [adapter],
    });
    await bot.start();
    const intake = new MessageIntake({ store, hub, handler: () => bot });
    const thread = await store.createThread();

    for (const [i, text] of ['/files', ' /Help ', 'plot the sales', '/files'].entries()) {
      const { message, inbound } = userMessage({ messageId: `m${i}`, threadId: thread.id, text, attachments: [] });
      await intake.submit(message, inbound);
    }
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push((await adapter.nextReply()).reply.text);

    expect((await store.messages(thread.id)).map((m) => m.command)).toEqual(['files', 'help', undefined, 'files']);
    expect(store.getThread(thread.id)?.title).toBe('plot the sales');
    expect(replies[0]).toContain('No files in this thread yet');
    expect(replies[1]).toContain('`Reset` clears variables and files');
  });
});
