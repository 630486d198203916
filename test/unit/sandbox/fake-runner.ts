import { Duplex } from 'node:stream';
import pino from 'pino';
import { RunnerConnection } from '../../../sandbox/runner-connection.js';

/** A scripted runner on the far side of a RunnerConnection: records requests, sends frames. */
export class FakeRunner {
  readonly requests: Record<string, unknown>[] = [];
  readonly stream: Duplex;
  onRequest: (request: Record<string, unknown>) => void = () => undefined;

  constructor() {
    let pending = '';
    this.stream = new Duplex({
      read() {},
      write: (chunk: Buffer, _enc, callback) => {
        pending += chunk.toString();
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const request = JSON.parse(pending.slice(0, nl)) as Record<string, unknown>;
          pending = pending.slice(nl + 1);
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
