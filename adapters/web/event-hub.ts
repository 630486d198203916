import type { ServerResponse } from 'node:http';
import { WebRequestError } from './map-request.js';

/** One server-sent event, already serialised. */
export interface HubEvent {
  id: number;
  event: string;
  data: string;
}

export interface EventHubOptions {
  /** Events kept per thread for `Last-Event-ID` replay. @defaultValue 1000 */
  replayLimit?: number;
  /** Bytes of events kept per thread for replay; older ones are dropped first. @defaultValue 1 MiB */
  replayMaxBytes?: number;
  /** Open event streams on one thread; more are refused with 429. @defaultValue 16 */
  maxStreamsPerThread?: number;
  /** Open event streams in all; more are refused with 503. @defaultValue 1000 */
  maxStreams?: number;
  /**
   * Bytes a stream may have waiting to be sent to a client that does not read; beyond it the stream
   * is ended (the client reconnects with `Last-Event-ID` and is replayed or resynced). @defaultValue 1 MiB
   */
  maxPendingBytes?: number;
  /** A thread without streams or jobs is forgotten (its replay buffer freed) after this long. @defaultValue 600000 */
  idleEvictMs?: number;
  /** Interval of SSE comment pings that keep proxies from closing idle streams. @defaultValue 15000 */
  keepAliveMs?: number;
}

interface ThreadChannel {
  buffer: HubEvent[];
  bufferBytes: number;
  /** Events with ids up to this one may have been dropped: a client that saw less must resync. */
  floorId: number;
  listeners: Set<ServerResponse>;
  /** Progress sinks open on this thread (a job is running). */
  activeJobs: number;
  lastActiveMs: number;
}

function format(e: HubEvent): string {
  const data = e.data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n');
  return `id: ${e.id}\nevent: ${e.event}\n${data}\n\n`;
}

/**
 * Per-thread fan-out of server-sent events with a replay buffer bounded by count and bytes. Ids grow
 * across restarts (they start at the boot time in ms), so a client whose `Last-Event-ID` is older
 * than what is buffered gets a `resync` event and reloads the stored messages instead of silently
 * missing a reply. Streams are capped per thread and in total.
 */
export class EventHub {
  private readonly channels = new Map<string, ThreadChannel>();
  private nextId = Date.now();
  private streams = 0;
  private readonly limits: Required<Omit<EventHubOptions, 'keepAliveMs'>>;
  private readonly keepAlive: NodeJS.Timeout;

  constructor(options: EventHubOptions = {}) {
    this.limits = {
      replayLimit: options.replayLimit ?? 1000,
      replayMaxBytes: options.replayMaxBytes ?? 1024 * 1024,
      maxStreamsPerThread: options.maxStreamsPerThread ?? 16,
      maxStreams: options.maxStreams ?? 1000,
      maxPendingBytes: options.maxPendingBytes ?? 1024 * 1024,
      idleEvictMs: options.idleEvictMs ?? 600_000,
    };
    this.keepAlive = setInterval(() => this.tick(), options.keepAliveMs ?? 15_000);
    this.keepAlive.unref();
  }

  publish(threadId: string, event: string, payload: unknown): HubEvent {
    const channel = this.channel(threadId);
    const e: HubEvent = { id: this.nextId++, event, data: JSON.stringify(payload) };
    channel.buffer.push(e);
    channel.bufferBytes += e.data.length;
    const { replayLimit, replayMaxBytes } = this.limits;
    while (channel.buffer.length > replayLimit || (channel.bufferBytes > replayMaxBytes && channel.buffer.length > 0)) {
      const dropped = channel.buffer.shift()!;
      channel.bufferBytes -= dropped.data.length;
      channel.floorId = Math.max(channel.floorId, dropped.id);
    }
    for (const res of channel.listeners) this.send(res, format(e));
    return e;
  }

  /** Events after `lastEventId`, or `resync` when some of them are no longer buffered. */
  replay(threadId: string, lastEventId: number | undefined): { events: HubEvent[]; resync: boolean } {
    if (lastEventId === undefined) return { events: [], resync: false };
    const channel = this.channels.get(threadId);
    const floorId = channel?.floorId ?? this.nextId - 1;
    if (lastEventId < floorId) return { events: [], resync: true };
    return { events: (channel?.buffer ?? []).filter((e) => e.id > lastEventId), resync: false };
  }

  /**
   * Starts an SSE stream on `res` for a thread, replaying what the client missed. Throws a 429
   * (this thread) or 503 (the server) WebRequestError, before anything is sent, when streams are at their cap.
   */
  subscribe(threadId: string, res: ServerResponse, lastEventId: number | undefined): void {
    if (this.listenerCount(threadId) >= this.limits.maxStreamsPerThread) {
      throw new WebRequestError(
        429,
        `This thread already has ${this.limits.maxStreamsPerThread} open event streams; close some tabs.`,
        'too_many_streams',
      );
    }
    if (this.streams >= this.limits.maxStreams) {
      throw new WebRequestError(503, 'The server has too many open event streams; try again later.', 'server_busy');
    }
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
    this.streams++;
    res.on('close', () => {
      if (channel.listeners.delete(res)) this.streams--;
      channel.lastActiveMs = Date.now();
    });
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

  /** Open streams, replay bytes and threads held in memory, for tests and logs. */
  stats(): { streams: number; threads: number; replayBytes: number } {
    let replayBytes = 0;
    for (const channel of this.channels.values()) replayBytes += channel.bufferBytes;
    return { streams: this.streams, threads: this.channels.size, replayBytes };
  }

  /** Ends the streams of one thread (deleted) or of all (shutdown). */
  close(threadId?: string): void {
    const ids = threadId === undefined ? [...this.channels.keys()] : [threadId];
    for (const id of ids) {
      const channel = this.channels.get(id);
      if (!channel) continue;
      for (const res of channel.listeners) res.end();
      this.streams -= channel.listeners.size;
      channel.listeners.clear();
      if (threadId !== undefined) this.channels.delete(id);
    }
    if (threadId === undefined) clearInterval(this.keepAlive);
  }

  /** Pings every stream and forgets threads nobody watches or works on any more. */
  evictIdle(nowMs = Date.now()): void {
    for (const [id, channel] of this.channels) {
      const idle = channel.listeners.size === 0 && channel.activeJobs === 0;
      if (idle && nowMs - channel.lastActiveMs >= this.limits.idleEvictMs) this.channels.delete(id);
    }
  }

  /** The id a `state` event carries: the newest id the client has now seen, so replay stays exact. */
  private lastId(threadId: string, lastEventId: number | undefined): number {
    const buffer = this.channels.get(threadId)?.buffer ?? [];
    return buffer.at(-1)?.id ?? lastEventId ?? this.nextId - 1;
  }

  private channel(threadId: string): ThreadChannel {
    let channel = this.channels.get(threadId);
    if (!channel) {
      // Events of an earlier, evicted channel of this thread may be gone: clients that saw less resync.
      const floorId = this.nextId - 1;
      channel = { buffer: [], bufferBytes: 0, floorId, listeners: new Set(), activeJobs: 0, lastActiveMs: Date.now() };
      this.channels.set(threadId, channel);
    }
    channel.lastActiveMs = Date.now();
    return channel;
  }

  /** Writes to a stream, ending it when its client stopped reading and too much waits to be sent. */
  private send(res: ServerResponse, text: string): void {
    if (res.writableLength > this.limits.maxPendingBytes) res.destroy();
    else res.write(text);
  }

  private tick(): void {
    for (const channel of this.channels.values()) for (const res of channel.listeners) this.send(res, ': ping\n\n');
    this.evictIdle();
  }
}
