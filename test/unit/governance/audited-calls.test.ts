import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { ThreadlabError } from '../../../src/domain/errors.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import type { AuditLog } from '../../../src/governance/audit/audit-log.js';
import { threadHash, type AuditRecord } from '../../../src/governance/audit/audit-record.js';
import { withAuditScope, withJobAuditScope } from '../../../src/governance/audit/audit-scope.js';
import { auditedLlm } from '../../../src/governance/audit/audited-llm.js';
import { auditedSandbox } from '../../../src/governance/audit/audited-sandbox.js';
import { Interpreter } from '../../../src/interpreter/interpreter.js';
import { createLogger } from '../../../src/logger.js';
import type { Job } from '../../../src/ports/job-queue.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { answer, runCode, ScriptedLlm, type ScriptedStep } from '../../fakes/scripted-llm.js';

const ref = { platform: 'slack' as const, workspace: 'T9', channel: 'C9', thread: '171.5' };
const key = threadKey(ref);
const job: Job = {
  id: 'job-42',
  threadKey: key,
  attempt: 1,
  enqueuedAtMs: 0,
  message: { id: 'm1', thread: ref, user: { id: 'U7' }, text: 'go', attachments: [], receivedAtMs: 0 },
};

function setUp(steps: ScriptedStep[] = []) {
  const records: AuditRecord[] = [];
  const log: AuditLog = { write: (r) => records.push(structuredClone(r)) };
  const fake = new FakeSandbox();
  const sandbox = auditedSandbox(fake, log);
  const config = loadConfig({ THREADLAB_DATA_DIR: mkdtempSync(join(tmpdir(), 'audit-')), OPENAI_API_KEY: 'sk-test' });
  const interpreter = new Interpreter({
    llm: auditedLlm(new ScriptedLlm({ steps }), log),
    sandbox,
    store: new MemoryConversationStore(),
    settings: config.llm,
    sandboxTimeoutMs: 5000,
    logger: createLogger({ level: 'silent' }),
  });
  return { records, fake, sandbox, interpreter };
}

const WHERE = { user: 'U7', platform: 'slack', workspace: 'T9', channel: 'C9', thread: key, job: 'job-42' };

describe('audit lines of runs and model calls', () => {
  it('writes exactly one line per run and per model call, with who, where and what', async () => {
    const t = setUp([runCode('print(1)', 'python', { promptTokens: 50, completionTokens: 7 }), answer('done')]);
    t.fake.enqueue({ writeFiles: { 'out.csv': 'a,b\n1,2\n' } }, {});
    await withJobAuditScope(job, async () => {
      await t.sandbox.putFile(key, 'in.csv', Buffer.from('x,y'));
      await t.interpreter.handle({ threadKey: key, text: 'go', uploaded: [] });
      await t.interpreter.runDirect({ threadKey: key, language: 'python', code: 'print(2)' });
    });
    expect(t.records.map((r) => r.kind)).toEqual(['model_call', 'run', 'model_call', 'run']);
    for (const r of t.records) {
      expect(r).toMatchObject({ v: 1, ...WHERE, threadHash: threadHash(key) });
      expect(Date.parse(r.ts)).not.toBeNaN();
    }
    const [call, byModel, , byUser] = t.records;
    expect(call).toMatchObject({
      model: 'scripted-model',
      status: 'ok',
      tokens: { prompt: 50, completion: 7 },
      toolCalls: 1,
    });
    expect(byModel).toMatchObject({
      origin: 'model',
      language: 'python',
      codeBytes: 8,
      codeSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      status: 'ok',
      durationMs: expect.any(Number),
      tokens: { prompt: 50, completion: 7 },
      filesIn: [{ name: 'in.csv', bytes: 3 }],
      filesOut: [{ name: 'out.csv', bytes: 8 }],
    });
    expect(byUser).toMatchObject({ origin: 'user', tokens: null, filesOut: [] });
  });

  it("says where the user's code came from: another person's message, or an attached script of the asker", async () => {
    const t = setUp();
    const cells = {
      ...job,
      intent: { kind: 'runCells' as const, cells: [{ language: 'python' as const, code: 'x' }], skipped: [] },
      message: { ...job.message, source: { messageId: 'M0', authorId: 'U-AUTHOR' } },
    };
    const script = { ...job, intent: { kind: 'runScript' as const, attachment: 'F1' } };
    await withJobAuditScope(cells, () => t.interpreter.runDirect({ threadKey: key, language: 'python', code: 'x' }));
    await withJobAuditScope(script, () => t.interpreter.runDirect({ threadKey: key, language: 'bash', code: 'ls' }));
    await withJobAuditScope(job, () => t.interpreter.runDirect({ threadKey: key, language: 'python', code: 'y' }));
    expect(t.records[0]).toMatchObject({ user: 'U7', origin: 'user', source: 'message', sourceAuthor: 'other' });
    expect(t.records[1]).toMatchObject({ user: 'U7', origin: 'user', source: 'attachment', sourceAuthor: 'invoker' });
    // Code typed in the asking message itself carries no source; the author's id is never on a line.
    expect(t.records[2]).not.toHaveProperty('source');
    expect(JSON.stringify(t.records)).not.toContain('U-AUTHOR');
  });

  it('writes the line of a run the sandbox failed, and of a model call that failed', async () => {
    const t = setUp([new ThreadlabError('llm_api', 'down')]);
    t.fake.enqueue({ throws: new ThreadlabError('sandbox_start_failed', 'no container') });
    await withJobAuditScope(job, async () => {
      await expect(t.interpreter.runDirect({ threadKey: key, language: 'python', code: 'x' })).rejects.toThrow(
        'no container',
      );
      const turn = await t.interpreter.handle({ threadKey: key, text: 'go', uploaded: [] });
      expect(turn.outcome).toBe('failed');
    });
    expect(t.records).toHaveLength(2);
    expect(t.records[0]).toMatchObject({ kind: 'run', status: 'sandbox_failed', errorCode: 'sandbox_start_failed' });
    expect(t.records[1]).toMatchObject({
      kind: 'model_call',
      status: 'failed',
      errorCode: 'llm_api',
      tokens: { prompt: 0, completion: 0 },
    });
  });

  it("outside a job (CLI exec) still says where from the key, and marks internal runs as the bot's", async () => {
    const t = setUp();
    // Who asked comes from a scope without a job (the Sandbox port knows no users).
    await withAuditScope({ user: 'U8', thread: null, job: null }, () =>
      t.sandbox.run(key, { language: 'bash', code: 'true', internal: true }),
    );
    expect(t.records[0]).toMatchObject({ kind: 'run', origin: 'system', user: 'U8', platform: 'slack', job: null });
  });
});
