import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AccessGate } from '../../../src/governance/access/access-gate.js';
import type { InboundMessage } from '../../../src/domain/messages.js';
import { createLogger } from '../../../src/logger.js';
import { asAdapterMaps } from '../../fakes/profiles.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });

const fromSlack = (text: string, extra: Partial<InboundMessage> = {}): InboundMessage =>
  asAdapterMaps({
    id: `m-${Math.random()}`,
    thread: { platform: 'slack', workspace: 'T0TEAM01', channel: 'C0CHAN01', thread: '1.1' },
    user: { id: 'U0OTHER1' },
    text,
    attachments: [],
    receivedAtMs: 0,
    ...extra,
  });

describe('access refusals of commands', () => {
  it('a command typed as the text (reset in a Slack thread) is told once per place, like any text', async () => {
    const gate = new AccessGate({ policy: { users: { slack: new Set(['U0ALLOW1']) } }, help: 'Ask.', logger });
    const typed = fromSlack('reset');
    expect(typed.command).toEqual({ name: 'reset' });
    const refusal = (await gate.check(typed, false, undefined))!;
    expect(refusal.why).toBe('user');
    expect(gate.tellsNow(typed, refusal)).toBe(true);
    expect(gate.tellsNow(fromSlack('reset'), refusal)).toBe(false);
    // A native command (a slash command the user waits on) is answered every time.
    const native = fromSlack('', { command: { name: 'reset' } });
    expect(gate.tellsNow(native, refusal)).toBe(true);
    expect(gate.tellsNow(native, refusal)).toBe(true);
  });
});
