import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import { loadConfig } from '../../../src/config/index.js';
import { PlatformAdapters } from '../../../src/platforms/platform-adapters.js';
import { Bot } from '../../../src/core/bot.js';
import { ThreadlabGovernance } from '../../../src/governance/governance.js';
import { ThreadWorker } from '../../../src/core/thread-worker.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import { createLogger } from '../../../src/logger.js';
import { InProcessJobQueue } from '../../../src/queue/in-process-queue.js';
import { DEFAULT_LIMITS } from '../../../src/queue/limits.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';
import type { ArtifactRenderer } from '../../../src/ports/artifact-renderer.js';
import { chartPng, RecordingRenderer } from '../replies/helpers.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });

function message(text: string, extra: Partial<InboundMessage> = {}): InboundMessage {
  return {
    id: randomUUID(),
    thread: { platform: 'web', workspace: 'local', channel: 'web', thread: 't1' },
    user: { id: 'u1' },
    text,
    attachments: [],
    receivedAtMs: Date.now(),
    ...extra,
  };
}

let current: Bot | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

function setup(
  options: {
    llm?: ScriptedLlm;
    sandbox?: FakeSandbox;
    limits?: Partial<typeof DEFAULT_LIMITS>;
    store?: MemoryConversationStore;
    adapter?: RecordingAdapter;
    renderer?: ArtifactRenderer;
  } = {},
) {
  const adapter = options.adapter ?? new RecordingAdapter('web');
  const sandbox = options.sandbox ?? new FakeSandbox();
  const late: { rt?: Bot } = {};
  const queue = new InProcessJobQueue({
    logger,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    onDropped: (job, reason) => late.rt?.onDropped(job, reason),
  });
  const bot = new Bot({
    governance: new ThreadlabGovernance({ config: loadConfig({}), logger }),
    config: loadConfig({ THREADLAB_SHUTDOWN_TIMEOUT_MS: '200' }),
    logger,
    sandbox,
    ...(options.llm ? { llm: options.llm } : {}),
    store: options.store ?? new MemoryConversationStore({ sweepIntervalMs: 0 }),
    queue,
    renderer: options.renderer ?? new SharpArtifactRenderer(),
    adapters: [adapter],
  });
  late.rt = bot;
  current = bot;
  return { adapter, sandbox, bot };
}

describe('Bot (core, with fakes of its ports)', () => {
  it('answers a message through the model loop, with live progress and one reply', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(6*7)'), answer('The answer is **42**.')] });
    const sandbox = new FakeSandbox({ results: [{ stdout: '42\n' }] });
    const { adapter, bot } = setup({ llm, sandbox });
    await bot.start();
    await adapter.handler!.onMessage(message('what is 6*7?'));
    const { reply } = await adapter.nextReply();
    expect(reply.kind).toBe('answer');
    expect(reply.text).toContain('**42**');
    expect(reply.runs).toEqual([expect.objectContaining({ language: 'python', code: 'print(6*7)', status: 'ok' })]);
    const types = adapter.progress_.map((p) => p.event.type);
    expect(types[0]).toBe('started');
    expect(types).toContain('code');
    await new Promise((r) => setTimeout(r, 20));
    expect(adapter.closedSinks).toHaveLength(1);
    expect(adapter.replies).toHaveLength(1);
  });

  it('renders a figure while the model writes its next step, once, and posts it', async () => {
    const png = await chartPng();
    const renderer = new RecordingRenderer();
    let renderedWhenAsked = -1;
    const llm = new ScriptedLlm({
      steps: [
        runCode('import matplotlib.pyplot as plt\nplt.plot([1, 2])'),
        () => {
          renderedWhenAsked = renderer.rendered.length;
          return answer('Here is the chart.');
        },
      ],
    });
    const sandbox = new FakeSandbox({
      results: [{ displays: [{ data: { 'image/png': png.toString('base64') }, meta: { title: 'Sales' } }] }],
    });
    const { adapter, bot } = setup({ llm, sandbox, renderer });
    await bot.start();
    await adapter.handler!.onMessage(message('plot it'));
    const { reply } = await adapter.nextReply();
    expect(renderedWhenAsked).toBe(1);
    expect(renderer.rendered.map((i) => i.name)).toEqual(['figure-1.png']);
    expect(reply.images.map((i) => [i.name, i.alt])).toEqual([['figure-1.png', 'Sales']]);
    expect(reply.images[0]!.data.equals(png)).toBe(true);
  });

  it('puts attachments into the sandbox and acknowledges an upload-only message with a preview', async () => {
    const { adapter, sandbox, bot } = setup();
    adapter.files.set('f1', Buffer.from('a,b\n1,2\n3,4\n'));
    adapter.files.set('f2', new Error('network down'));
    await bot.start();
    await adapter.handler!.onMessage(
      message('', {
        attachments: [
          { id: 'f1', name: 'data.csv' },
          { id: 'f3', name: 'missing.csv' },
        ],
      }),
    );
    const { reply } = await adapter.nextReply();
    expect(reply.text).toContain('`data.csv`');
    expect(reply.text).toMatch(/2 rows/);
    expect(reply.text).toContain('`missing.csv` could not be added');
    expect((await sandbox.listFiles('web:local:web:t1')).map((f) => f.path)).toEqual(['data.csv']);
  });

  it('replies politely when a limit refuses a message, and runs a fenced block without any model', async () => {
    const sandbox = new FakeSandbox({ results: [{ stdout: 'hi\n', delayMs: 300 }] });
    const { adapter, bot } = setup({ sandbox, limits: { userMaxConcurrent: 1 } });
    await bot.start();
    await adapter.handler!.onMessage(message('```python\nprint("hi")\n```'));
    await adapter.handler!.onMessage(message('```python\nprint("again")\n```'));
    const refusal = await adapter.nextReply();
    expect(refusal.reply.text).toMatch(/try again in about \d+ seconds/i);
    const answerReply = await adapter.nextReply();
    expect(answerReply.reply.text).toContain('hi');
    expect(sandbox.runs).toHaveLength(1);
  });

  it("frees a person's slot when the answer is delivered, while the platform is still taking the status down", async () => {
    const sandbox = new FakeSandbox({ results: [{ stdout: 'one\n' }, { stdout: 'two\n' }] });
    const { adapter, bot } = setup({ sandbox, limits: { userMaxConcurrent: 1 } });
    let release = () => {};
    adapter.closeGate = new Promise<void>((resolve) => (release = resolve));
    await bot.start();
    await adapter.handler!.onMessage(message('```python\nprint("one")\n```'));
    expect((await adapter.nextReply()).reply.text).toContain('one');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(adapter.closedSinks).toEqual([]);
    // The first status is not down yet: the follow-up is taken, and its run waits for the status to go.
    const second = message('```python\nprint("two")\n```');
    await adapter.handler!.onMessage(second);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(adapter.progress_.some((p) => p.messageId === second.id)).toBe(false);
    release();
    expect((await adapter.nextReply()).reply.text).toContain('two');
    expect(sandbox.runs).toHaveLength(2);
    await vi.waitFor(() => expect(adapter.closedSinks).toHaveLength(2));
  });

  it('handles commands: files, reset and help', async () => {
    const { adapter, sandbox, bot } = setup();
    await bot.start();
    await sandbox.putFile('web:local:web:t1', 'notes.txt', Buffer.from('x'));
    await adapter.handler!.onMessage(message('', { command: { name: 'files' } }));
    expect((await adapter.nextReply()).reply.text).toContain('`notes.txt`');
    await adapter.handler!.onMessage(message('', { command: { name: 'reset' } }));
    expect((await adapter.nextReply()).reply.text).toContain('reset');
    expect(await sandbox.listFiles('web:local:web:t1')).toEqual([]);
    await adapter.handler!.onMessage(message('', { command: { name: 'help' } }));
    expect((await adapter.nextReply()).reply.text).toContain('/mnt/data');
  });

  it('tells the user when a shutdown interrupts a run, instead of a false "stopped"', async () => {
    const sandbox = new FakeSandbox({ results: [{ stdout: 'never\n', delayMs: 5000 }] });
    const { adapter, bot } = setup({ sandbox });
    await bot.start();
    await adapter.handler!.onMessage(message('```python\nimport time; time.sleep(5)\n```'));
    await new Promise((r) => setTimeout(r, 100));
    current = undefined;
    await bot.stop();
    const { reply } = await adapter.nextReply();
    expect(reply.text).toContain('restarted before it could work on this message');
    expect(adapter.replies).toHaveLength(1);
  });

  it('a worker that never held the thread fetches its uploads again from the platform, once', async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    const adapter = new RecordingAdapter('web');
    adapter.files.set('f1', Buffer.from('a,b\n1,2\n'));
    const first = setup({ store, adapter });
    await first.bot.start();
    await adapter.handler!.onMessage(message('', { attachments: [{ id: 'f1', name: 'data.csv' }] }));
    await adapter.nextReply();

    // Another worker: a fresh sandbox with no files for the thread, the same shared conversation store.
    const sandbox = new FakeSandbox({ results: [{ stdout: '2 rows\n' }] });
    const second = new ThreadWorker({
      governance: new ThreadlabGovernance({ config: loadConfig({}), logger }),
      config: loadConfig({}),
      logger,
      sandbox,
      store,
      renderer: new SharpArtifactRenderer(),
      adapters: new PlatformAdapters([adapter]),
    });
    const job = {
      id: 'j2',
      threadKey: 'web:local:web:t1',
      attempt: 2,
      enqueuedAtMs: Date.now(),
      message: message('```python\nprint(len(df))\n```'),
    };
    await second.process(job, { signal: new AbortController().signal });
    const { reply } = await adapter.nextReply();
    expect(reply.text).toContain("Fetched this thread's uploads again: `data.csv`");
    expect(reply.text).toContain('variables were reset');
    expect((await sandbox.readFile('web:local:web:t1', 'data.csv')).toString()).toBe('a,b\n1,2\n');

    // A thread that has files (data.csv deleted by the user's code, say) gets nothing back.
    await sandbox.reset('web:local:web:t1');
    await sandbox.putFile('web:local:web:t1', 'other.txt', Buffer.from('x'));
    sandbox.retire('web:local:web:t1'); // idle: its container is gone, its files stay
    expect(sandbox.isLive('web:local:web:t1')).toBe(false);
    await second.process({ ...job, id: 'j3', attempt: 1 }, { signal: new AbortController().signal });
    expect((await adapter.nextReply()).reply.text).not.toContain('Fetched');
    await first.bot.stop();
  });

  it('says how to configure a model when natural language arrives without one', async () => {
    const { adapter, bot } = setup();
    await bot.start();
    await adapter.handler!.onMessage(message('plot my data'));
    expect((await adapter.nextReply()).reply.text).toContain('OPENAI_API_KEY');
  });
});
