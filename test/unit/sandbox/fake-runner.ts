import { Duplex } from 'node:stream';
import pino from 'pino';
import { RunnerConnection } from '../../../sandbox/runner-connection.js';

/**
 * A scripted runner on the far side of a RunnerConnection: records requests (a `put_file`'s raw bytes as its
 * `payload`), sends frames (a `file` or `chunk` frame's bytes raw after its line, as sandbox/image/runner/protocol.py
 * does).
 */
export class FakeRunner {
  readonly requests: Record<string, unknown>[] = [];
  readonly stream: Duplex;
  onRequest: (request: Record<string, unknown>) => void = () => undefined;

  constructor() {
    let pending = Buffer.alloc(0);
    this.stream = new Duplex({
      read() {},
      write: (chunk: Buffer, _enc, callback) => {
        pending = Buffer.concat([pending, chunk]);
        for (;;) {
          const nl = pending.indexOf(0x0a);
          if (nl < 0) break;
          const request = JSON.parse(pending.subarray(0, nl).toString('utf8')) as Record<string, unknown>;
          const bytes = request.op === 'put_file' ? Number(request.bytes ?? 0) : 0;
          if (pending.length < nl + 1 + bytes) break; // its payload has not all come
          if (request.op === 'put_file') request.payload = Buffer.from(pending.subarray(nl + 1, nl + 1 + bytes));
          pending = pending.subarray(nl + 1 + bytes);
          this.requests.push(request);
          queueMicrotask(() => this.onRequest(request));
        }
        callback();
      },
      final: (callback) => {
        callback();
      },
    });
  }

  send(frame: unknown, split = false): void {
    const text = `${JSON.stringify(frame)}\n`;
    if (!split) {
      this.stream.push(Buffer.from(text));
      return;
    }
    for (let i = 0; i < text.length; i += 7) this.stream.push(Buffer.from(text.slice(i, i + 7)));
  }

  /** A `file` answer: its frame line, then `data` raw, `bytes` saying how many (unless `claimBytes` lies). */
  sendFile(id: unknown, data: Buffer, info: { size: number; eof: boolean; claimBytes?: number }, split = false): void {
    const line = Buffer.from(
      `${JSON.stringify({ type: 'file', id, size: info.size, eof: info.eof, bytes: info.claimBytes ?? data.length })}\n`,
    );
    const all = Buffer.concat([line, data]);
    if (!split) {
      this.stream.push(all);
      return;
    }
    for (let i = 0; i < all.length; i += 7) this.stream.push(all.subarray(i, i + 7));
  }

  /** A `chunk` frame of a streamed file: its line, then `data` raw (`bytes` says how many unless `claimBytes` lies). */
  sendChunk(id: unknown, data: Buffer, info: { reset?: boolean; claimBytes?: number } = {}): void {
    const frame = { type: 'chunk', id, bytes: info.claimBytes ?? data.length, ...(info.reset ? { reset: true } : {}) };
    this.stream.push(Buffer.concat([Buffer.from(`${JSON.stringify(frame)}\n`), data]));
  }

  ready(): void {
    this.send({ type: 'ready', python: '3.13.5', packages: { pandas: '2' } });
  }

  end(): void {
    this.stream.push(null);
    this.stream.destroy();
  }

  connect(): RunnerConnection {
    return new RunnerConnection({
      stream: this.stream,
      demux: (s, out) => s.on('data', (d: Buffer) => out.write(d)),
      logger: pino({ level: 'silent' }),
    });
  }
}

export function resultFrame(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'result',
    id,
    status: 'ok',
    executionCount: 1,
    durationMs: 1,
    stdout: '',
    stderr: '',
    artifacts: [],
    deleted: [],
    ...overrides,
  };
}
