import type { ServerResponse } from 'node:http';

/** One server-sent event, already serialised. */
export interface HubEvent {
  id: number;
  event: string;
  data: string;
}

export interface EventHubOptions {
  /** Events kept per thread for `Last-Event-ID` replay. @defaultValue 1000 */
  replayLimit?: number;
  /** Interval of SSE comment pings that keep proxies from closing idle streams. @defaultValue 15000 */
  keepAliveMs?: number;
}

interface ThreadChannel {
  buffer: HubEvent[];
  listeners: Set<ServerResponse>;
  /** Progress sinks open on this thread (a job is running). */
  activeJobs: number;
}

function format(e: HubEvent): string {
  const data = e.data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n');
  return `id: ${e.id}\nevent: ${e.event}\n${data}\n\n`;
}

/**
 * Per-thread fan-out of server-sent events with a replay buffer. Ids grow across restarts (they start
 * at the boot time in ms), so a client whose `Last-Event-ID` is older than the buffer gets a `resync`
 * event and reloads the stored messages instead of silently missing a reply.
 */
export class EventHub {
  private readonly channels = new Map<string, ThreadChannel>();
  private nextId = Date.now();
  private readonly replayLimit: number;
  private readonly keepAlive: NodeJS.Timeout;

  constructor(options: EventHubOptions = {}) {
    this.replayLimit = options.replayLimit ?? 1000;
    this.keepAlive = setInterval(() => this.ping(), options.keepAliveMs ?? 15_000);
    this.keepAlive.unref();
  }

  publish(threadId: string, event: string, payload: unknown): HubEvent {
    const channel = this.channel(threadId);
    const e: HubEvent = { id: this.nextId++, event, data: JSON.stringify(payload) };
    channel.buffer.push(e);
    if (channel.buffer.length > this.replayLimit) channel.buffer.splice(0, channel.buffer.length - this.replayLimit);
    for (const res of channel.listeners) res.write(format(e));
    return e;
  }

  /** Events after `lastEventId`, or `resync` when some of them are no longer buffered. */
  replay(threadId: string, lastEventId: number | undefined): { events: HubEvent[]; resync: boolean } {
    const buffer = this.channels.get(threadId)?.buffer ?? [];
    if (lastEventId === undefined) return { events: [], resync: false };
    const oldest = buffer[0]?.id ?? this.nextId;
    if (lastEventId < oldest - 1) return { events: [], resync: true };
    return { events: buffer.filter((e) => e.id > lastEventId), resync: false };
  }

  /** Starts an SSE stream on `res` for a thread, replaying what the client missed. */
  subscribe(threadId: string, res: ServerResponse, lastEventId: number | undefined): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    const { events, resync } = this.replay(threadId, lastEventId);
    if (resync) res.write(format({ id: this.nextId - 1, event: 'resync', data: '{}' }));
    for (const e of events) res.write(format(e));
    res.write(
      format({
        id: this.lastId(threadId, lastEventId),
        event: 'state',
        data: JSON.stringify({ busy: this.isBusy(threadId) }),
      }),
    );
    const channel = this.channel(threadId);
    channel.listeners.add(res);
    res.on('close', () => channel.listeners.delete(res));
  }

  jobStarted(threadId: string): void {
    this.channel(threadId).activeJobs++;
  }

  jobEnded(threadId: string): void {
    const channel = this.channel(threadId);
    channel.activeJobs = Math.max(0, channel.activeJobs - 1);
  }

  isBusy(threadId: string): boolean {
    return (this.channels.get(threadId)?.activeJobs ?? 0) > 0;
  }

  listenerCount(threadId: string): number {
    return this.channels.get(threadId)?.listeners.size ?? 0;
  }

  /** Ends the streams of one thread (deleted) or of all (shutdown). */
  close(threadId?: string): void {
    const ids = threadId === undefined ? [...this.channels.keys()] : [threadId];
    for (const id of ids) {
      const channel = this.channels.get(id);
      if (!channel) continue;
      for (const res of channel.listeners) res.end();
      channel.listeners.clear();
      if (threadId !== undefined) this.channels.delete(id);
    }
    if (threadId === undefined) clearInterval(this.keepAlive);
  }

  /** The id a `state` event carries: the newest id the client has now seen, so replay stays exact. */
  private lastId(threadId: string, lastEventId: number | undefined): number {
    const buffer = this.channels.get(threadId)?.buffer ?? [];
    return buffer.at(-1)?.id ?? lastEventId ?? this.nextId - 1;
  }

  private channel(threadId: string): ThreadChannel {
    let channel = this.channels.get(threadId);
    if (!channel) {
      channel = { buffer: [], listeners: new Set(), activeJobs: 0 };
      this.channels.set(threadId, channel);
    }
    return channel;
  }

  private ping(): void {
    for (const channel of this.channels.values()) for (const res of channel.listeners) res.write(': ping\n\n');
  }
}
