import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AccessGate } from '../../../src/governance/access/access-gate.js';
import { GroupMemory } from '../../../src/governance/access/group-memory.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import { createLogger } from '../../../src/logger.js';
import { asAdapterMaps } from '../../fakes/profiles.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });

const message = (user: string, channel = 'C0CHAN01'): InboundMessage =>
  asAdapterMaps({
    id: `m-${Math.random()}`,
    thread: { platform: 'slack', workspace: 'T0TEAM01', channel, thread: '1.1' },
    user: { id: user },
    text: 'hello',
    attachments: [],
    receivedAtMs: 0,
  });

/** A surface that counts how often the platform is asked who is in which group. */
const countingSurface = (members: Record<string, string[]>) => {
  const asked: string[] = [];
  return {
    asked,
    groupsOf: async (m: InboundMessage) => {
      asked.push(m.user.id);
      return members[m.user.id] ?? [];
    },
  };
};

describe('access is decided once per message: the platform is asked for groups once', () => {
  const policy = { users: { slack: new Set(['S0ANALYSTS']) } };

  it("the adapter's check and the core's check of one message share the platform's answer", async () => {
    const surface = countingSurface({ U0ANNA: ['S0ANALYSTS'] });
    const gate = new AccessGate({ policy, help: 'Ask.', logger });
    const provisional = message('U0ANNA');
    expect(await gate.check(provisional, false, surface)).toBeUndefined();
    // The thread the adapter then created is another channel id for the same person: still one question.
    expect(await gate.check(message('U0ANNA', 'C0THREAD1'), false, surface)).toBeUndefined();
    expect(surface.asked).toEqual(['U0ANNA']);
    expect((await gate.check(message('U0BOB'), false, surface))?.why).toBe('user');
    expect(surface.asked).toEqual(['U0ANNA', 'U0BOB']);
  });

  it('a membership change is seen once the kept answer is older than its lifetime', async () => {
    let nowMs = 0;
    const members: Record<string, string[]> = { U0ANNA: ['S0ANALYSTS'] };
    const surface = countingSurface(members);
    const gate = new AccessGate({
      policy,
      help: 'Ask.',
      logger,
      groupMemory: new GroupMemory({ ttlMs: 10_000, maxEntries: 10, now: () => nowMs }),
    });
    expect(await gate.check(message('U0ANNA'), false, surface)).toBeUndefined();
    members.U0ANNA = [];
    nowMs = 9_999;
    expect(await gate.check(message('U0ANNA'), false, surface)).toBeUndefined();
    nowMs = 10_000;
    expect((await gate.check(message('U0ANNA'), false, surface))?.why).toBe('user');
    expect(surface.asked).toHaveLength(2);
  });

  it('keeps at most maxEntries people, and never keeps a failed answer', async () => {
    const memory = new GroupMemory({ ttlMs: 60_000, maxEntries: 3 });
    for (let i = 0; i < 10; i += 1) await memory.groups(`u${i}`, async () => []);
    expect(memory.size).toBe(3);
    await expect(memory.groups('down', () => Promise.reject(new Error('platform down')))).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 0));
    let asked = 0;
    await memory.groups('down', async () => {
      asked += 1;
      return ['S0X'];
    });
    expect(asked).toBe(1);
  });
});
