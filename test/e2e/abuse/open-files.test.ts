/**
 * Issue 26, item 10: `threadlab start` under the common soft limit of 1,024 open files. Its connection
 * caps come from the real limit (with headroom for health, Docker, Redis and files), so 3,000 event
 * streams neither exhaust the descriptors nor silence `/api/health`; streams past the cap are refused
 * with a clear 503 or 429; the start wrapper raises the soft limit to the hard one.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ShippedBot } from '../shipped/shipped-bot.js';
import { WebClientForTests } from '../shipped/web-client.js';

const SOFT_LIMIT = 1024;
const STREAMS = 3000;
/** Streams the server allows per thread (adapters/web/event-hub.ts). */
const STREAMS_PER_THREAD = 16;

interface StreamAttempt {
  /** The HTTP status, or 0 when the connection ended without an answer (-1: error or timeout). */
  status: number;
  /** The refusal's body (empty for an open stream). */
  text: string;
  socket: Socket;
}

/** Opens one event stream on a raw socket and keeps it open; resolves once its answer started (or failed). */
function openStream(port: number, threadId: string): Promise<StreamAttempt> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    let settled = false;
    const settle = (status: number, text: string): void => {
      if (settled) return;
      settled = true;
      resolve({ status, text, socket });
    };
    socket.setTimeout(20_000, () => settle(-1, 'no answer within 20 s'));
    socket.on('error', (err) => settle(-1, err.message));
    socket.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
      const headEnd = raw.indexOf('\r\n\r\n');
      if (headEnd >= 0 && raw.startsWith('HTTP/1.1 200')) settle(200, '');
    });
    socket.on('end', () => {
      const headEnd = raw.indexOf('\r\n\r\n');
      settle(headEnd >= 0 ? Number(raw.slice(9, 12)) : 0, headEnd >= 0 ? raw.slice(headEnd + 4) : raw);
    });
    socket.write(`GET /api/threads/${threadId}/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
  });
}

/** The fields of the start-up log line naming the web chat's connection caps. */
function capsLine(output: string): Record<string, number> | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('web chat connection caps')) continue;
    return JSON.parse(line.slice(line.indexOf('{'))) as Record<string, number>;
  }
  return undefined;
}

describe('threadlab start under a limit of 1,024 open files', () => {
  let bot: ShippedBot | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await bot?.cleanup();
    bot = undefined;
  }, 60_000);

  const spawnUnder = async (prefix: string[]): Promise<ShippedBot> => {
    const b = new ShippedBot({ web: true });
    bot = b;
    await b.startFakes();
    await b.spawn({ THREADLAB_SANDBOX_POOL_SIZE: '0', THREADLAB_LOG_LEVEL: 'info' }, prefix);
    await b.process.ready(120_000);
    return b;
  };

  it('3,000 event streams: /api/health still answers, streams past the derived cap get a 503 or 429 with text', async () => {
    const b = await spawnUnder(['prlimit', `--nofile=${SOFT_LIMIT}:${SOFT_LIMIT}`]);
    const web = new WebClientForTests(() => b.webUrl);
    const threads: string[] = [];
    for (let i = 0; i < Math.ceil(STREAMS / STREAMS_PER_THREAD); i++) threads.push(await web.createThread());

    const attempts: StreamAttempt[] = [];
    for (let i = 0; i < STREAMS; i += 100) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(100, STREAMS - i) }, (_, j) =>
          openStream(b.webPort, threads[Math.floor((i + j) / STREAMS_PER_THREAD)]!),
        ),
      );
      for (const a of batch) sockets.push(a.socket);
      attempts.push(...batch);
    }

    const health = await fetch(`${b.webUrl}/api/health`, { signal: AbortSignal.timeout(10_000) });
    expect(health.status, b.process.output().slice(-2000)).toBe(200);
    expect(await health.json()).toEqual({ ok: true });

    const open = attempts.filter((a) => a.status === 200);
    const refused = attempts.filter((a) => a.status !== 200);
    const unclear = refused.filter((a) => (a.status !== 503 && a.status !== 429) || a.text.trim() === '');
    expect(unclear.map((a) => `${a.status} ${a.text.slice(0, 80)}`).slice(0, 5)).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);

    const caps = capsLine(b.process.output());
    expect(caps, 'the start-up log names the derived caps').toBeDefined();
    expect(caps!.openFilesSoft).toBe(SOFT_LIMIT);
    expect(caps!.maxConnections).toBeLessThan(SOFT_LIMIT);
    expect(caps!.maxStreams).toBeLessThan(caps!.maxConnections!);
    expect(open.length).toBe(caps!.maxStreams);
  }, 240_000);

  it('the start wrapper raises the soft limit to the hard one, and the caps follow it', async () => {
    const b = await spawnUnder(['prlimit', `--nofile=${SOFT_LIMIT}:4096`, 'sh', 'bin/raise-open-files.sh']);
    const caps = capsLine(b.process.output());
    expect(caps, b.process.output().slice(-2000)).toBeDefined();
    expect(caps!.openFilesSoft).toBe(4096);
    expect(caps!.openFilesHard).toBe(4096);
    // The configured defaults fit under 4,096 descriptors with their headroom.
    expect(caps!.maxConnections).toBe(1500);
    expect(caps!.maxStreams).toBe(1000);
  }, 180_000);
});
