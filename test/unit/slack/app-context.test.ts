import { describe, expect, it } from 'vitest';
import { mapAppContext, ViewedChannels } from '../../../adapters/slack/app-context.js';
import { appContextChanged } from '../../fakes/fake-slack/index.js';

/** Slack's own example on the app_context_changed reference page (its event, with the user @slack/types adds). */
const documented = {
  type: 'app_context_changed',
  user: 'U123ABC456',
  context: { entities: [{ type: 'slack#/types/channel_id', value: 'C01234ABDCE', team_id: 'T0ABCDE6543' }] },
  event_ts: '1729999327.187299',
};

describe('app_context_changed → what the user looks at', () => {
  it('reads the first channel of the documented payload', () => {
    expect(mapAppContext(documented)).toEqual({ user: 'U123ABC456', channel: 'C01234ABDCE' });
  });

  it('takes a message context’s channel, skips canvases, lists and DMs, and reads {} as nothing', () => {
    const event = appContextChanged({
      entities: [
        { type: 'slack#/types/canvas_id', value: 'F0CANVAS' },
        { type: 'slack#/types/channel_id', value: 'D0DIRECT1' },
        { type: 'slack#/types/message_context', value: { channel_id: 'G0PRIVATE', message_ts: '1.2' } },
      ],
    });
    expect(mapAppContext(event)?.channel).toBe('G0PRIVATE');
    expect(mapAppContext(appContextChanged({}))).toEqual({ user: 'U0USER01', channel: undefined });
  });

  it('refuses hostile payloads: no user, a bad id, a channel that is not an id', () => {
    expect(mapAppContext({ ...documented, user: undefined })).toBeUndefined();
    expect(mapAppContext({ ...documented, user: 'x'.repeat(500) })).toBeUndefined();
    const odd = appContextChanged({ entities: [{ type: 'slack#/types/channel_id', value: '<!channel> #x' }] });
    expect(mapAppContext(odd)?.channel).toBeUndefined();
    expect(mapAppContext({ type: 'app_context_changed', user: 'U1ABC', context: { entities: 'no' } })).toBeUndefined();
  });

  it('remembers per workspace and user, forgets after the TTL, and is bounded', () => {
    const viewed = new ViewedChannels({ maxUsers: 2, ttlMs: 1000 });
    viewed.remember('T1', { user: 'U1', channel: 'C1' }, 0);
    expect(viewed.recall('T1', 'U1', 500)).toBe('C1');
    expect(viewed.recall('T2', 'U1', 500)).toBeUndefined();
    expect(viewed.recall('T1', 'U1', 1500)).toBeUndefined(); // past the TTL
    viewed.remember('T1', { user: 'U1', channel: 'C1' }, 2000);
    viewed.remember('T1', { user: 'U2', channel: 'C2' }, 2000);
    viewed.remember('T1', { user: 'U3', channel: 'C3' }, 2000);
    expect(viewed.size).toBe(2);
    expect(viewed.recall('T1', 'U1', 2000)).toBeUndefined(); // the oldest went
    viewed.remember('T1', { user: 'U3', channel: undefined }, 2100); // nothing in view now
    expect(viewed.recall('T1', 'U3', 2100)).toBeUndefined();
  });
});
