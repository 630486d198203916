import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisApprovalBoard } from '../../../adapters/redis/redis-approval-board.js';
import { ApprovalGate } from '../../../src/governance/approval/approval-gate.js';
import { createLogger } from '../../../src/logger.js';
import type { ApprovalDecision, ApprovalView } from '../../../src/ports/approval.js';
import { approvalBoardContract } from '../../contract/approval-board-contract.js';
import { deleteKeys, startRedisServer, testRedis } from './redis-server.js';

const logger = createLogger({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let redis: Awaited<ReturnType<typeof testRedis>>;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => redis?.stop());

/** Two boards on one Redis, as a worker (waiting) and a gateway (pressing) have: separate connections. */
function twoBoards(keyPrefix = `test-approval-${randomUUID()}`) {
  const waiting = new RedisApprovalBoard({ redisUrl: redis.url, logger, keyPrefix });
  const pressing = new RedisApprovalBoard({ redisUrl: redis.url, logger, keyPrefix });
  return {
    keyPrefix,
    waiting,
    pressing,
    async dispose() {
      await Promise.all([waiting.shutdown(), pressing.shutdown()]);
      await deleteKeys(redis.url, keyPrefix);
    },
  };
}

/** Asks `gate` for approval of `print(1)` by U-ASKER on Slack; `onShown` sees the buttons' view. */
function ask(gate: ApprovalGate, onShown: (view: ApprovalView) => void = () => undefined): Promise<ApprovalDecision> {
  return gate.request({
    platform: 'slack',
    threadKey: 'slack:T1:C1:1.0',
    askerId: 'U-ASKER',
    language: 'python',
    code: 'print(1)',
    signal: new AbortController().signal,
    show: async (view) => {
      onShown(view);
      return { settle: async () => undefined };
    },
  });
}

/** Asks `gate` for approval and resolves once the buttons are shown, with the pending decision. */
async function requestShown(gate: ApprovalGate): Promise<{ view: ApprovalView; decision: Promise<ApprovalDecision> }> {
  let shown: ApprovalView | undefined;
  const decision = ask(gate, (view) => (shown = view));
  while (!shown) await sleep(5);
  return { view: shown, decision };
}

approvalBoardContract('Redis, two processes', async () => twoBoards());

describe('approval in Redis', () => {
  it('a press at one process (the gateway) decides the turn waiting in another (the worker); others are refused', async () => {
    const { waiting, pressing, dispose } = twoBoards();
    const worker = new ApprovalGate({ timeoutMs: 10_000, admins: [], logger, board: waiting });
    const gateway = new ApprovalGate({ timeoutMs: 10_000, admins: ['slack:U-ADMIN'], logger, board: pressing });
    try {
      const { view, decision } = await requestShown(worker);
      const press = (userId: string, platform: 'slack' | 'discord' = 'slack') =>
        gateway.press(platform, { approvalId: view.approvalId, action: 'run', userId });
      expect(await press('U-OTHER')).toMatchObject({ ok: false, reason: 'not_allowed' });
      expect(await press('U-ASKER', 'discord')).toMatchObject({ ok: false, reason: 'unknown' });
      expect(await press('U-ADMIN')).toEqual({ ok: true, decision: 'run' });
      expect(await decision).toEqual({ kind: 'run', by: 'U-ADMIN' });
      expect(await press('U-ASKER')).toMatchObject({ ok: false, reason: 'unknown' });
    } finally {
      await dispose();
    }
  });

  it('a decision whose announcement was missed is found when the wait ends, not lost to a timeout', async () => {
    const { keyPrefix, waiting, dispose } = twoBoards();
    const raw = new Redis(redis.url);
    const gate = new ApprovalGate({ timeoutMs: 300, admins: [], logger, board: waiting });
    try {
      const { view: shown, decision } = await requestShown(gate);
      // Decided in Redis without the announcement (as when the worker's subscription was reconnecting).
      await raw.set(`${keyPrefix}:${shown.approvalId}`, 'decided:{"kind":"skip","by":"U-ASKER"}', 'KEEPTTL');
      expect(await decision).toEqual({ kind: 'skip', by: 'U-ASKER' });
      expect(await raw.exists(`${keyPrefix}:${shown.approvalId}`)).toBe(0);
    } finally {
      raw.disconnect();
      await dispose();
    }
  });

  it('announcements are claims: malformed, oversized or foreign ones decide nothing and break nothing', async () => {
    const { keyPrefix, waiting, pressing, dispose } = twoBoards();
    const raw = new Redis(redis.url);
    try {
      const id = randomUUID();
      const heard: unknown[] = [];
      await waiting.open(id, { platform: 'slack', askerId: 'U-ASKER' }, 60_000, (d) => heard.push(d));
      const channel = `${keyPrefix}:decided`;
      for (const text of [
        'not json',
        JSON.stringify({ id, kind: 'run' }),
        JSON.stringify({ id, kind: 'delete-everything', by: 'U-ASKER' }),
        JSON.stringify({ id: { $ne: 1 }, kind: 'run', by: 'x' }),
        JSON.stringify({ id, kind: 'run', by: 'U-ASKER', pad: 'x'.repeat(10_000) }),
        JSON.stringify({ id: randomUUID(), kind: 'run', by: 'U-ASKER' }),
      ]) {
        await raw.publish(channel, text);
      }
      await sleep(200);
      expect(heard).toEqual([]);
      // Still waiting, and still decided by a real press.
      expect(await pressing.decide(id, { kind: 'skip', by: 'U-ASKER' })).toBe(true);
      while (heard.length === 0) await sleep(5);
      expect(heard).toEqual([{ kind: 'skip', by: 'U-ASKER' }]);
      // A stored value that is not ours reads as nothing waiting.
      await raw.set(`${keyPrefix}:${id}`, '{"platform":"teams","askerId":"U"}');
      expect(await pressing.find(id)).toBeUndefined();
    } finally {
      raw.disconnect();
      await dispose();
    }
  });

  it('with Redis unreachable, the request is skipped and a press is answered, within the bound', async () => {
    const board = new RedisApprovalBoard({ redisUrl: 'redis://127.0.0.1:1', logger, keyPrefix: 'unreachable' });
    const gate = new ApprovalGate({ timeoutMs: 10_000, admins: [], logger, board });
    try {
      const started = Date.now();
      let shown = false;
      const decision = await ask(gate, () => (shown = true));
      expect(decision).toMatchObject({ kind: 'unavailable' });
      expect(shown).toBe(false);
      expect(Date.now() - started).toBeLessThan(8000);
      const press = await gate.press('slack', { approvalId: randomUUID(), action: 'run', userId: 'U-ASKER' });
      expect(press).toMatchObject({ ok: false, reason: 'unavailable' });
    } finally {
      await gate.close();
    }
  }, 20_000);

  it('rides out a Redis restart: a request while it is down is skipped in time, the next one is decided again', async () => {
    const server = await startRedisServer();
    const keyPrefix = `test-approval-${randomUUID()}`;
    const waiting = new RedisApprovalBoard({ redisUrl: server.url, logger, keyPrefix });
    const pressing = new RedisApprovalBoard({ redisUrl: server.url, logger, keyPrefix });
    const worker = new ApprovalGate({ timeoutMs: 10_000, admins: [], logger, board: waiting });
    const gateway = new ApprovalGate({ timeoutMs: 10_000, admins: [], logger, board: pressing });
    const pressRun = (view: ApprovalView) =>
      gateway.press('slack', { approvalId: view.approvalId, action: 'run', userId: 'U-ASKER' });
    try {
      const before = await requestShown(worker);
      expect(await pressRun(before.view)).toEqual({ ok: true, decision: 'run' });
      expect(await before.decision).toEqual({ kind: 'run', by: 'U-ASKER' });

      const back = server.restart({ downMs: 6000 });
      await sleep(200);
      const down = await ask(worker);
      expect(down).toMatchObject({ kind: 'unavailable' });
      await back;

      const after = await requestShown(worker);
      expect(await pressRun(after.view)).toEqual({ ok: true, decision: 'run' });
      expect(await after.decision).toEqual({ kind: 'run', by: 'U-ASKER' });
      // The request recorded late (Redis came back after the wait gave up) was closed too: no key is left.
      const raw = new Redis(server.url);
      try {
        const until = Date.now() + 3000;
        while ((await raw.keys(`${keyPrefix}:*`)).length > 0 && Date.now() < until) await sleep(50);
        expect(await raw.keys(`${keyPrefix}:*`)).toEqual([]);
      } finally {
        raw.disconnect();
      }
    } finally {
      await Promise.all([worker.close(), gateway.close()]);
      await server.stop();
    }
  }, 40_000);
});
