import { describe, expect, it } from 'vitest';
import { ApprovalGate } from '../../../src/governance/approval/approval-gate.js';
import { parseApprovalAdmins } from '../../../src/config/approval-admins.js';
import type { ApprovalSettled, ApprovalView } from '../../../src/ports/approval.js';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';
import { input, rig, silentLogger, toolMessages } from '../interpreter/helpers.js';

/** A gate and a surface that records what it was asked to show and how each prompt was settled. */
function setup(options: { timeoutMs?: number; admins?: string[]; maxPending?: number } = {}) {
  const gate = new ApprovalGate({
    timeoutMs: options.timeoutMs ?? 5000,
    admins: options.admins ?? [],
    ...(options.maxPending ? { maxPending: options.maxPending } : {}),
    logger: silentLogger,
  });
  const shown: ApprovalView[] = [];
  const settled: ApprovalSettled[] = [];
  const waitShown = async (count: number) => {
    while (shown.length < count) await new Promise((r) => setTimeout(r, 5));
    return shown[count - 1]!;
  };
  const request = (signal = new AbortController().signal) =>
    gate.request({
      platform: 'slack',
      threadKey: 'slack:T1:C1:1.0',
      askerId: 'U_ASKER',
      language: 'python',
      code: 'print(1)',
      signal,
      show: async (view) => {
        shown.push(view);
        return { settle: async (outcome) => void settled.push(outcome) };
      },
    });
  return { gate, shown, settled, waitShown, request };
}

describe('ApprovalGate', () => {
  it('runs on the asker’s Run and refuses another user’s press without deciding', async () => {
    const { gate, settled, waitShown, request } = setup();
    const pending = request();
    const view = await waitShown(1);
    expect(view).toMatchObject({ askerId: 'U_ASKER', code: 'print(1)', language: 'python', timeoutMs: 5000 });
    const other = await gate.press('slack', { approvalId: view.approvalId, action: 'run', userId: 'U_OTHER' });
    expect(other).toMatchObject({ ok: false, reason: 'not_allowed' });
    expect(gate.size).toBe(1);
    expect(await gate.press('slack', { approvalId: view.approvalId, action: 'run', userId: 'U_ASKER' })).toEqual({
      ok: true,
      decision: 'run',
    });
    expect(await pending).toEqual({ kind: 'run', by: 'U_ASKER' });
    expect(settled).toEqual([{ kind: 'run', by: 'U_ASKER' }]);
    // Decided once: a second press finds nothing waiting.
    expect(await gate.press('slack', { approvalId: view.approvalId, action: 'skip', userId: 'U_ASKER' })).toMatchObject(
      {
        ok: false,
        reason: 'unknown',
      },
    );
  });

  it('waits for the press parked: the buttons are shown first, the decision comes back through the park', async () => {
    const { gate, shown } = setup();
    const log: string[] = [];
    const pending = gate.request({
      platform: 'slack',
      threadKey: 'slack:T1:C1:1.0',
      askerId: 'U_ASKER',
      language: 'python',
      code: 'print(1)',
      signal: new AbortController().signal,
      show: async (view) => {
        log.push('shown');
        shown.push(view);
        return { settle: async () => void log.push('settled') };
      },
      park: async (wait) => {
        log.push('parked');
        const decided = await wait();
        log.push('back');
        return decided;
      },
    });
    while (shown.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(log).toEqual(['shown', 'parked']);
    await gate.press('slack', { approvalId: shown[0]!.approvalId, action: 'run', userId: 'U_ASKER' });
    expect(await pending).toEqual({ kind: 'run', by: 'U_ASKER' });
    expect(log).toEqual(['shown', 'parked', 'back', 'settled']);
  });

  it('lets a configured admin decide, on their platform only', async () => {
    const { gate, waitShown, request } = setup({ admins: ['slack:U_ADMIN', 'discord:U_DADMIN'] });
    const pending = request();
    const view = await waitShown(1);
    expect((await gate.press('slack', { approvalId: view.approvalId, action: 'run', userId: 'U_DADMIN' })).ok).toBe(
      false,
    );
    expect((await gate.press('discord', { approvalId: view.approvalId, action: 'run', userId: 'U_ADMIN' })).ok).toBe(
      false,
    );
    expect((await gate.press('slack', { approvalId: view.approvalId, action: 'skip', userId: 'U_ADMIN' })).ok).toBe(
      true,
    );
    expect(await pending).toEqual({ kind: 'skip', by: 'U_ADMIN' });
  });

  it('skips when nobody decides in time', async () => {
    const { settled, request } = setup({ timeoutMs: 150 });
    const started = Date.now();
    const decision = await request();
    expect(decision.kind).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(settled.map((s) => s.kind)).toEqual(['timeout']);
  });

  it('refuses a request past maxPending without showing it', async () => {
    const { gate, shown, waitShown, request } = setup({ maxPending: 2 });
    const first = request();
    const second = request();
    await waitShown(2);
    expect(await request()).toMatchObject({ kind: 'unavailable', reason: expect.stringContaining('too many') });
    expect(shown).toHaveLength(2);
    for (const view of shown)
      await gate.press('slack', { approvalId: view.approvalId, action: 'skip', userId: 'U_ASKER' });
    await Promise.all([first, second]);
    expect(gate.size).toBe(0);
  });

  it('rejects when the turn is stopped while waiting, and forgets the request', async () => {
    const { gate, settled, waitShown, request } = setup();
    const stop = new AbortController();
    const pending = request(stop.signal);
    await waitShown(1);
    stop.abort(new Error('stopped'));
    await expect(pending).rejects.toThrow('stopped');
    expect(gate.size).toBe(0);
    expect(settled).toHaveLength(1);
  });

  it('skips (fails closed) when the buttons cannot be shown; an over-long id is unknown', async () => {
    const gate = new ApprovalGate({ timeoutMs: 5000, admins: [], logger: silentLogger });
    const decision = await gate.request({
      platform: 'web',
      threadKey: 'web:x',
      askerId: 'u',
      language: 'python',
      code: '1',
      signal: new AbortController().signal,
      show: () => Promise.reject(new Error('platform down')),
    });
    expect(decision.kind).toBe('unavailable');
    expect((await gate.press('web', { approvalId: 'x'.repeat(10_000), action: 'run', userId: 'u' })).ok).toBe(false);
  });

  it('parses THREADLAB_APPROVAL_ADMINS and names a bad entry', () => {
    expect(parseApprovalAdmins('slack:U1, discord:123 ,web:local')).toEqual(['slack:U1', 'discord:123', 'web:local']);
    expect(() => parseApprovalAdmins('U1')).toThrow(/platform:userId.*"U1"/);
    expect(() => parseApprovalAdmins('teams:U1')).toThrow(/teams:U1/);
  });
});

describe('Interpreter loop with approval', () => {
  it('runs approved code, tells the model a skipped run did not run, and does not count the wait as turn time', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(1)'), runCode('import os'), answer('done')] });
    const { interpreter, sandbox } = rig({ llm, settings: { turnTimeoutMs: 1000 } });
    sandbox.enqueue({ stdout: '1\n' });
    const asked: string[] = [];
    const result = await interpreter.handle(input('go'), {
      approve: async ({ code }) => {
        asked.push(code);
        // Longer than the turn's whole time limit: the turn must still finish with an answer.
        await new Promise((r) => setTimeout(r, 700));
        return asked.length === 1 ? { kind: 'run', by: 'U1' } : { kind: 'skip', by: 'U1' };
      },
    });
    expect(asked).toEqual(['print(1)', 'import os']);
    expect(result.outcome).toBe('answer');
    expect(sandbox.runs.map((r) => r.request.code)).toEqual(['print(1)']);
    const told = toolMessages(llm.requests[2]!.messages);
    expect(told[1]).toContain('This code did NOT run: The user chose Skip');
    expect(result.runs).toHaveLength(1);
  });

  it('tells the model when nobody approved in time; direct runs never ask', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(2)'), answer('ok')] });
    const { interpreter, sandbox } = rig({ llm });
    const approve = async () => ({ kind: 'timeout' as const, waitedMs: 300_000 });
    await interpreter.handle(input('go'), { approve });
    expect(sandbox.runs).toHaveLength(0);
    expect(toolMessages(llm.requests[1]!.messages)[0]).toContain('Nobody approved it within 300 s');
    await interpreter.runDirect({ threadKey: input('x').threadKey, language: 'python', code: 'print(3)' }, { approve });
    expect(sandbox.runs.map((r) => r.request.code)).toEqual(['print(3)']);
  });
});

describe('THREADLAB_APPROVAL settings', () => {
  it('is off by default, and ask runs in split roles too (the requests wait in Redis there)', async () => {
    const { loadConfig } = await import('../../../src/config/index.js');
    const { roleProblem } = await import('../../../app/index.js');
    const slack = {
      SLACK_BOT_TOKEN: 'xoxb-1234567890-abcdef',
      SLACK_APP_TOKEN: 'xapp-1-A0-1234567890-abcdef',
      THREADLAB_WEB_ENABLED: 'false',
    };
    expect(loadConfig(slack).approval).toEqual({ mode: 'off', timeoutMs: 300_000, admins: [] });
    const ask = loadConfig({ ...slack, THREADLAB_APPROVAL: 'ask', THREADLAB_APPROVAL_ADMINS: 'slack:U1' });
    expect(ask.approval).toMatchObject({ mode: 'ask', admins: ['slack:U1'] });
    expect(roleProblem(ask, 'worker')).toBeUndefined();
    expect(roleProblem(ask, 'gateway')).toBeUndefined();
    expect(roleProblem(ask, 'all')).toBeUndefined();
    expect(() => loadConfig({ ...slack, THREADLAB_APPROVAL_ADMINS: 'U1' })).toThrow(/THREADLAB_APPROVAL_ADMINS/);
    // Importing app/ (the composition root) loads every adapter's SDK: seconds on a loaded 2-core machine, past the unit default of 10 s.
  }, 60_000);
});
