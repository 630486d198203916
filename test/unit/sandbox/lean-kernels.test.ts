import type Docker from 'dockerode';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LeanKernels } from '../../../sandbox/lean-kernels.js';
import { LiveContainer } from '../../../sandbox/live-container.js';
import type { ReadyFrame } from '../../../sandbox/runner-protocol.js';
import { SessionRegistry } from '../../../sandbox/session-registry.js';
import { StateKeeper } from '../../../sandbox/state-keeper.js';
import { FakeRunner } from './fake-runner.js';

const logger = pino({ level: 'silent' });

/** A session with a live container on a scripted runner; `killed` counts SIGKILLs sent to the container. */
function setup(recycleTimeoutMs = 5000) {
  const registry = new SessionRegistry({
    dataDir: '/tmp/unused',
    idleTtlMs: 300_000,
    isSaved: (s) => !s.stateDirty && !s.stateIncomplete && !s.holdsUnsavedSession,
    maxAgeMs: 86_400_000,
    onExpire: () => undefined,
  });
  const state = new StateKeeper({
    registry,
    limits: { stateMaxBytes: 1 << 20, stateSaveDelayMs: 1000, timeoutMs: 1000, graceMs: 100 },
    logger,
  });
  const runner = new FakeRunner();
  const killed = { count: 0 };
  const container = { id: 'c1', kill: async () => void (killed.count += 1) } as unknown as Docker.Container;
  const live = new LiveContainer(container, 'c1', runner.connect(), {} as ReadyFrame, logger);
  const session = registry.get('k');
  session.live = live;
  const lean = new LeanKernels({ registry, state, logger, recycleTimeoutMs });
  return { registry, runner, killed, session, lean };
}

describe('LeanKernels.recycle', () => {
  it('asks the runner for a lean kernel and marks the session so its variables come back first', async () => {
    const { runner, session, lean } = setup();
    runner.onRequest = (req) => runner.send({ type: 'ok', id: req.id, seconds: 0.2 });
    await expect(lean.recycle(session, 'the thread was idle for 1 min')).resolves.toBe(true);
    expect(runner.requests.map((r) => r.op)).toEqual(['recycle_kernel']);
    expect(session.leanReason).toMatch(/^the thread was idle for 1 min, so its Python process was replaced/);
    // Already lean: nothing more to free.
    await expect(lean.recycle(session, 'again')).resolves.toBe(false);
    expect(runner.requests).toHaveLength(1);
  });

  it('leaves a session that holds anything unsaved alone, without asking the runner', async () => {
    for (const unsaved of ['stateDirty', 'stateIncomplete', 'holdsUnsavedSession'] as const) {
      const { runner, session, lean } = setup();
      session[unsaved] = true;
      await expect(lean.recycle(session, 'idle')).resolves.toBe(false);
      expect(runner.requests).toEqual([]);
      expect(session.leanReason).toBeUndefined();
    }
  });

  it('a runner that does not answer within the bound loses its container; the session stays marked lean', async () => {
    const { runner, killed, session, lean } = setup(50);
    runner.onRequest = () => undefined; // never answers
    await expect(lean.recycle(session, 'idle')).resolves.toBe(false);
    expect(killed.count).toBe(1);
    expect(session.leanReason).toBeDefined();
  });

  it('a refusal keeps the mark: whatever the old kernel became, the saved variables are loaded before its next use', async () => {
    const { runner, killed, session, lean } = setup();
    runner.onRequest = (req) =>
      runner.send({ type: 'error', id: req.id, code: 'recycle_failed', message: 'did not exit' });
    await expect(lean.recycle(session, 'idle')).resolves.toBe(false);
    expect(killed.count).toBe(0);
    expect(session.leanReason).toBeDefined();
  });
});
