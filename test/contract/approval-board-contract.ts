import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApprovalBoard, BoardDecision } from '../../src/ports/approval-board.js';

/**
 * Two boards on the same store (for Redis: two connections, as a gateway and a worker have) and their
 * cleanup. An in-process board has one store per process, so its factory returns the same board twice.
 */
export type BoardFactory = () => Promise<{ waiting: ApprovalBoard; pressing: ApprovalBoard; dispose(): Promise<void> }>;

const entry = { platform: 'slack', askerId: 'U-ASKER' } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for the first decision delivered to `onDecided`. */
function listener() {
  const heard: BoardDecision[] = [];
  return {
    heard,
    onDecided: (d: BoardDecision) => void heard.push(d),
    async next(timeoutMs = 2000): Promise<BoardDecision> {
      const until = Date.now() + timeoutMs;
      while (heard.length === 0 && Date.now() < until) await sleep(5);
      if (!heard[0]) throw new Error('no decision was delivered');
      return heard[0];
    },
  };
}

/** One suite for every ApprovalBoard: where a turn waits and where a press is decided. */
export function approvalBoardContract(name: string, factory: BoardFactory): void {
  describe(`approval board: ${name}`, () => {
    it('a press found on the board decides the request once; the waiting side hears who pressed', async () => {
      const { waiting, pressing, dispose } = await factory();
      try {
        const id = randomUUID();
        const l = listener();
        await waiting.open(id, entry, 60_000, l.onDecided);
        expect(await pressing.find(id)).toEqual(entry);
        expect(await pressing.decide(id, { kind: 'run', by: 'U-ASKER' })).toBe(true);
        expect(await l.next()).toEqual({ kind: 'run', by: 'U-ASKER' });
        // Decided: a second press finds nothing and decides nothing.
        expect(await pressing.find(id)).toBeUndefined();
        expect(await pressing.decide(id, { kind: 'skip', by: 'U-ASKER' })).toBe(false);
        expect(await waiting.close(id)).toEqual({ kind: 'run', by: 'U-ASKER' });
        expect(l.heard).toHaveLength(1);
      } finally {
        await dispose();
      }
    });

    it('a closed request is no longer waiting: a late press decides nothing', async () => {
      const { waiting, pressing, dispose } = await factory();
      try {
        const id = randomUUID();
        const l = listener();
        await waiting.open(id, entry, 60_000, l.onDecided);
        expect(await waiting.close(id)).toBeUndefined();
        expect(await pressing.find(id)).toBeUndefined();
        expect(await pressing.decide(id, { kind: 'run', by: 'U-ASKER' })).toBe(false);
        await sleep(100);
        expect(l.heard).toEqual([]);
      } finally {
        await dispose();
      }
    });

    it('of two presses at once, exactly one wins', async () => {
      const { waiting, pressing, dispose } = await factory();
      try {
        const id = randomUUID();
        const l = listener();
        await waiting.open(id, entry, 60_000, l.onDecided);
        const won = await Promise.all([
          pressing.decide(id, { kind: 'run', by: 'U-ASKER' }),
          waiting.decide(id, { kind: 'skip', by: 'U-ADMIN' }),
          pressing.decide(id, { kind: 'skip', by: 'U-ASKER' }),
        ]);
        expect(won.filter(Boolean)).toHaveLength(1);
        const decision = await l.next();
        expect(await waiting.close(id)).toEqual(decision);
        await sleep(100);
        expect(l.heard).toHaveLength(1);
      } finally {
        await dispose();
      }
    });

    it('a request whose process died is forgotten after its time to live (the board stays bounded)', async () => {
      const { waiting, pressing, dispose } = await factory();
      try {
        const id = randomUUID();
        await waiting.open(id, entry, 150, () => undefined);
        expect(await pressing.find(id)).toEqual(entry);
        await sleep(400);
        expect(await pressing.find(id)).toBeUndefined();
        expect(await pressing.decide(id, { kind: 'run', by: 'U-ASKER' })).toBe(false);
      } finally {
        await dispose();
      }
    });
  });
}
