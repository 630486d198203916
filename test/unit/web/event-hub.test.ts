import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../adapters/web/event-hub.js';

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
  const make = (replayLimit?: number) => {
    const hub = new EventHub({ replayLimit });
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
});
