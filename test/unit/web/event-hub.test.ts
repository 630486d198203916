import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub, type EventHubOptions } from '../../../adapters/web/event-hub.js';
import { WebRequestError } from '../../../adapters/web/map-request.js';

/** Records what an SSE stream would have sent. */
class FakeResponse extends EventEmitter {
  text = '';
  status = 0;
  ended = false;
  writeHead(status: number) {
    this.status = status;
    return this;
  }
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
  end() {
    this.ended = true;
    this.emit('close');
  }
  events(): { id: number; event: string; data: unknown }[] {
    return this.text
      .split('\n\n')
      .filter((block) => block.includes('event: '))
      .map((block) => {
        const get = (k: string) =>
          block
            .split('\n')
            .find((l) => l.startsWith(`${k}: `))
            ?.slice(k.length + 2) ?? '';
        return { id: Number(get('id')), event: get('event'), data: JSON.parse(get('data')) };
      });
  }
}

const subscribe = (hub: EventHub, thread: string, last?: number) => {
  const res = new FakeResponse();
  hub.subscribe(thread, res as unknown as ServerResponse, last);
  return res;
};

describe('EventHub', () => {
  const hubs: EventHub[] = [];
  const make = (replayLimit?: number, options: EventHubOptions = {}) => {
    const hub = new EventHub({ replayLimit, ...options });
    hubs.push(hub);
    return hub;
  };
  afterEach(() => hubs.splice(0).forEach((h) => h.close()));

  it('broadcasts to every listener of the thread only', () => {
    const hub = make();
    const a = subscribe(hub, 't1');
    const b = subscribe(hub, 't1');
    const other = subscribe(hub, 't2');
    hub.publish('t1', 'progress', { type: 'started' });
    expect(a.status).toBe(200);
    expect(a.events().map((e) => e.event)).toEqual(['state', 'progress']);
    expect(b.events().at(-1)?.data).toEqual({ type: 'started' });
    expect(other.events().map((e) => e.event)).toEqual(['state']);
  });

  it('replays exactly what a reconnecting client missed after Last-Event-ID', () => {
    const hub = make();
    const first = hub.publish('t', 'progress', { n: 1 });
    hub.publish('t', 'progress', { n: 2 });
    hub.publish('t', 'reply', { n: 3 });
    const res = subscribe(hub, 't', first.id);
    expect(res.events().map((e) => [e.event, e.data])).toEqual([
      ['progress', { n: 2 }],
      ['reply', { n: 3 }],
      ['state', { busy: false }],
    ]);
    // the state event carries the newest id, so a second reconnect replays nothing twice
    const again = subscribe(hub, 't', res.events().at(-1)!.id);
    expect(again.events().map((e) => e.event)).toEqual(['state']);
  });

  it('asks for a resync when the missed events are no longer buffered', () => {
    const hub = make(2);
    const first = hub.publish('t', 'progress', { n: 1 });
    hub.publish('t', 'progress', { n: 2 });
    hub.publish('t', 'progress', { n: 3 });
    expect(subscribe(hub, 't', first.id - 1).events()[0]?.event).toBe('resync');
    // an id from before a restart is older than anything a fresh hub has
    expect(subscribe(make(), 't', first.id - 10).events()[0]?.event).toBe('resync');
  });

  it('tracks whether a job runs and ends streams on close', () => {
    const hub = make();
    hub.jobStarted('t');
    expect(subscribe(hub, 't').events()[0]?.data).toEqual({ busy: true });
    hub.jobEnded('t');
    expect(hub.isBusy('t')).toBe(false);
    const res = subscribe(hub, 't');
    expect(hub.listenerCount('t')).toBe(2);
    hub.close('t');
    expect(res.ended).toBe(true);
    expect(hub.listenerCount('t')).toBe(0);
  });

  it('caps streams per thread (429) and in total (503) before sending anything, and frees them on close', () => {
    const hub = make(undefined, { maxStreamsPerThread: 2, maxStreams: 3 });
    const a = subscribe(hub, 't1');
    subscribe(hub, 't1');
    const refused = new FakeResponse();
    const err = (() => {
      try {
        hub.subscribe('t1', refused as unknown as ServerResponse, undefined);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(WebRequestError);
    expect((err as WebRequestError).status).toBe(429);
    expect(refused.status).toBe(0);
    subscribe(hub, 't2');
    expect(() => subscribe(hub, 't3')).toThrow(expect.objectContaining({ status: 503, code: 'server_busy' }));
    a.end();
    expect(hub.stats().streams).toBe(2);
    expect(subscribe(hub, 't3').status).toBe(200);
  });

  it('bounds the replay buffer by bytes; a client that missed dropped events resyncs', () => {
    const hub = make(undefined, { replayMaxBytes: 1000 });
    const first = hub.publish('t', 'progress', { text: 'x'.repeat(400) });
    for (let i = 0; i < 20; i++) hub.publish('t', 'progress', { text: 'x'.repeat(400) });
    expect(hub.stats().replayBytes).toBeLessThanOrEqual(1000);
    expect(subscribe(hub, 't', first.id).events()[0]?.event).toBe('resync');
    const last = hub.publish('t', 'reply', { n: 1 });
    expect(
      subscribe(hub, 't', last.id - 1)
        .events()
        .map((e) => e.event),
    ).toEqual(['reply', 'state']);
  });

  it('forgets idle threads: no streams, no job, nothing for idleEvictMs', () => {
    const hub = make(undefined, { idleEvictMs: 1000 });
    const seen = hub.publish('idle', 'reply', { n: 1 });
    hub.publish('busy', 'progress', {});
    hub.jobStarted('busy');
    subscribe(hub, 'watched');
    hub.evictIdle(Date.now() + 2000);
    expect(hub.stats().threads).toBe(2);
    // a client of the forgotten thread may have missed events that are gone: it resyncs
    expect(subscribe(hub, 'idle', seen.id - 1).events()[0]?.event).toBe('resync');
  });

  it('ends a stream whose client stopped reading once too much waits to be sent', () => {
    const hub = make(undefined, { maxPendingBytes: 100 });
    const res = subscribe(hub, 't') as FakeResponse & { writableLength: number; destroyed: boolean; destroy(): void };
    res.writableLength = 101;
    res.destroy = () => {
      res.destroyed = true;
      res.emit('close');
    };
    hub.publish('t', 'progress', {});
    expect(res.destroyed).toBe(true);
    expect(hub.stats().streams).toBe(0);
  });
});
