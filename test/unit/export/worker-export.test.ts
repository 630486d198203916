import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { SharpArtifactRenderer } from '../../../adapters/render/sharp-renderer.js';
import { loadConfig } from '../../../src/config/index.js';
import { Bot } from '../../../src/core/bot.js';
import { ThreadlabGovernance } from '../../../src/governance/governance.js';
import type { AuditRecord } from '../../../src/governance/audit/audit-record.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import { createLogger } from '../../../src/logger.js';
import type { ExportEntry, ExportLogLimits } from '../../../src/ports/conversation-store.js';
import { InProcessJobQueue } from '../../../src/queue/in-process-queue.js';
import { DEFAULT_LIMITS } from '../../../src/queue/limits.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox, type FakeRunOutcome } from '../../fakes/fake-sandbox.js';
import { asAdapterMaps } from '../../fakes/profiles.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });

/** A store whose export log is unavailable (Redis gone mid-turn, say), for the worker's handling of it. */
class BrokenExportStore extends MemoryConversationStore {
  override async appendExport(_key: string, _entry: ExportEntry, _limits: ExportLogLimits): Promise<void> {
    throw new Error('export log unavailable');
  }
}

/** A web chat message as its adapter hands it to the core (a typed `/reset` read as that command). */
const message = (text: string): InboundMessage =>
  asAdapterMaps({
    id: randomUUID(),
    thread: { platform: 'web', workspace: 'local', channel: 'web', thread: 't1' },
    user: { id: 'u1' },
    text,
    attachments: [],
    receivedAtMs: Date.now(),
  });

let bot: Bot | undefined;
afterEach(async () => {
  await bot?.stop();
  bot = undefined;
});

async function start(store: MemoryConversationStore, llm: ScriptedLlm, sandbox: FakeSandbox, audit?: AuditRecord[]) {
  const adapter = new RecordingAdapter('web');
  bot = new Bot({
    governance: new ThreadlabGovernance({
      config: loadConfig({}),
      logger,
      ...(audit ? { audit: { write: (record) => audit.push(record) } } : {}),
    }),
    config: loadConfig({ THREADLAB_SHUTDOWN_TIMEOUT_MS: '200' }),
    logger,
    sandbox,
    llm,
    store,
    queue: new InProcessJobQueue({ logger, limits: DEFAULT_LIMITS }),
    renderer: new SharpArtifactRenderer(),
    adapters: [adapter],
  });
  await bot.start();
  return adapter;
}

describe('the thread worker and the export log', () => {
  it('records the question and only the runs that succeeded, in order; reset forgets them', async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    const llm = new ScriptedLlm({ steps: [runCode('print(x)'), runCode('x = 1\nprint(x)'), answer('It is 1.')] });
    const failed = { status: 'error', error: { name: 'ExitCode', value: 'bash exited with status 3', traceback: '' } };
    const sandbox = new FakeSandbox({
      results: [{ status: 'error', stderr: 'NameError' }, { stdout: '1\n' }, failed as FakeRunOutcome],
    });
    const adapter = await start(store, llm, sandbox);
    await adapter.handler!.onMessage(message('what is x?'));
    await adapter.nextReply();
    await adapter.handler!.onMessage(message('```bash\nexit 3\n```'));
    await adapter.nextReply();
    const log = await store.readExport('web:local:web:t1');
    expect(log.entries).toEqual([
      { kind: 'message', text: 'what is x?', atMs: expect.any(Number) },
      {
        kind: 'run',
        language: 'python',
        code: 'x = 1\nprint(x)',
        outputs: [{ type: 'stream', name: 'stdout', text: '1\n' }],
        atMs: expect.any(Number),
      },
      {
        kind: 'answer',
        text: 'It is 1.',
        atMs: expect.any(Number),
        figures: { checked: 0, notFound: 0, notFoundTexts: [], unchecked: 0, verificationRound: false },
      },
    ]);
    await adapter.handler!.onMessage(message('/reset'));
    await adapter.nextReply();
    expect(await store.readExport('web:local:web:t1')).toEqual({ entries: [], dropped: 0 });
  });

  it('records the answer with the counts of its figures, and writes its audit line through governance', async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    const insisted = 'The mean is 12.35, up 7.9 % on last year.';
    const llm = new ScriptedLlm({ steps: [runCode('print(m)'), answer(insisted), answer(insisted)] });
    const sandbox = new FakeSandbox({ results: [{ stdout: 'mean 12.3456\n' }, { stdout: 'mine 42\n' }] });
    const audit: AuditRecord[] = [];
    const adapter = await start(store, llm, sandbox, audit);
    await adapter.handler!.onMessage(message('what is the mean?'));
    await adapter.nextReply();
    const counts = { checked: 2, notFound: 1, notFoundTexts: ['7.9 %'], unchecked: 0, verificationRound: true };
    const log = await store.readExport('web:local:web:t1');
    expect(log.entries.at(-1)).toEqual({ kind: 'answer', text: insisted, atMs: expect.any(Number), figures: counts });
    const answers = audit.filter((r) => r.kind === 'answer');
    expect(answers).toEqual([
      {
        v: 1,
        ts: expect.any(String),
        user: 'u1',
        platform: 'web',
        workspace: 'local',
        channel: 'web',
        thread: 'web:local:web:t1',
        threadHash: expect.stringMatching(/^[0-9a-f]{24}$/),
        job: expect.any(String),
        kind: 'answer',
        outcome: 'answer',
        model: llm.model,
        runs: 1,
        tokens: { prompt: expect.any(Number), completion: expect.any(Number) },
        durationMs: expect.any(Number),
        figuresChecked: 2,
        figuresNotFound: 1,
        figuresUnchecked: 0,
        verificationRound: true,
      },
    ]);
    // The figure's text never reaches the audit line (its timestamp may hold the digits "7.9", so it is left out).
    expect(JSON.stringify(answers.map(({ ts: _ts, ...line }) => line))).not.toContain('7.9');
    // The user's own code has no model turn: no answer line, no answer entry.
    await adapter.handler!.onMessage(message('```python\nprint("mine", 6 * 7)\n```'));
    await adapter.nextReply();
    expect(audit.filter((r) => r.kind === 'answer')).toHaveLength(1);
    expect((await store.readExport('web:local:web:t1')).entries.filter((e) => e.kind === 'answer')).toHaveLength(1);
  });

  it('still answers when the export log cannot be written, and says the exchange is not in the export', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(1)'), answer('Printed 1.')] });
    const adapter = await start(new BrokenExportStore({ sweepIntervalMs: 0 }), llm, new FakeSandbox());
    await adapter.handler!.onMessage(message('print one'));
    const { reply } = await adapter.nextReply();
    expect(reply.kind).toBe('answer');
    expect(reply.text).toContain('Printed 1.');
    expect(reply.text).toContain("could not be added to the thread's notebook export");
  });
});
