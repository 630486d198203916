import { createServer, connect, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAuditScope } from '../../../src/governance/audit/audit-scope.js';
import { auditedEgress } from '../../../src/governance/audit/audited-egress.js';
import type { EgressContext, EgressPort } from '../../../src/ports/egress.js';
import { makeSandbox, testRuntime, type TestSandbox } from './helpers.js';

// The transport of egress against the real engine, under runc and runsc: the code's connections to its proxy
// address reach the bot as streams (here handed to a loopback echo server instead of the gateway), both ways, at
// volume and with flow control, only while a run is active, and not at all when egress is off.

/** Pipes each relayed connection to a loopback TCP server; records who asked. */
class PipeToServer implements EgressPort<{ timeoutMs: number; close: () => void }> {
  readonly contexts: EgressContext[] = [];
  constructor(private readonly port: () => number) {}
  describe(): { allowed: string[]; packageIndexes: string[] } {
    return { allowed: ['127.0.0.1'], packageIndexes: [] };
  }
  newBudget(timeoutMs: number): { timeoutMs: number; close: () => void } {
    return { timeoutMs, close: () => undefined };
  }
  handle(client: Duplex, context: EgressContext): Promise<void> {
    this.contexts.push(context);
    return new Promise((resolve) => {
      const upstream = connect(this.port(), '127.0.0.1');
      client.pipe(upstream).pipe(client);
      const done = () => {
        upstream.destroy();
        client.destroy();
        resolve();
      };
      client.on('close', done);
      upstream.on('close', done);
      client.on('error', done);
      upstream.on('error', done);
    });
  }
}

let echo: Server;
let open = 0;
let relayed: TestSandbox;
let closed: TestSandbox;
const port = new PipeToServer(() => (echo.address() as { port: number }).port);

beforeAll(async () => {
  echo = createServer((socket: Socket) => {
    open += 1;
    socket.on('close', () => (open -= 1));
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  relayed = await makeSandbox('egress-relay', {}, undefined, { egress: auditedEgress(port) });
  closed = await makeSandbox('egress-off');
});

afterAll(async () => {
  await relayed?.close();
  await closed?.close();
  await new Promise((resolve) => echo.close(resolve));
});

const ROUND_TRIP = [
  'import hashlib, os, socket, threading',
  'payload = os.urandom(6 * 2**20)',
  's = socket.create_connection(("127.0.0.1", 3128), timeout=30)',
  'got = bytearray()',
  'def reader():',
  '    while len(got) < len(payload):',
  '        chunk = s.recv(1 << 16)',
  '        if not chunk:',
  '            break',
  '        got.extend(chunk)',
  't = threading.Thread(target=reader)',
  't.start()',
  's.sendall(payload)',
  't.join(60)',
  'print(len(got), hashlib.sha256(got).hexdigest() == hashlib.sha256(payload).hexdigest())',
  'print(os.environ["HTTPS_PROXY"])',
].join('\n');

describe(`the egress relay (${testRuntime()})`, () => {
  it('carries 6 MiB each way through the proxy address, in order, with the thread named for the audit', async () => {
    const result = await withAuditScope({ user: 'U1', thread: null, job: null }, () =>
      relayed.sandbox.run('relay', { language: 'python', code: ROUND_TRIP }),
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${6 * 2 ** 20} True\nhttp://127.0.0.1:3128\n`);
    expect(port.contexts.at(-1)).toMatchObject({ user: 'U1', thread: expect.stringMatching(/^[0-9a-f]{24}$/) });
  });

  it('ends every relayed connection with the run: a socket kept open by the kernel is closed', async () => {
    const kept = await relayed.sandbox.run('keep', {
      language: 'python',
      code: 's = socket_kept = __import__("socket").create_connection(("127.0.0.1", 3128))\ns.sendall(b"ping")\nprint(s.recv(4))',
    });
    expect(kept.stdout).toBe("b'ping'\n");
    const deadline = Date.now() + 5000;
    while (open > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(open).toBe(0);
    const after = await relayed.sandbox.run('keep', { language: 'python', code: 'print(s.recv(4))' });
    expect(after.stdout).toBe("b''\n"); // the relay closed its side when the run ended
  });

  it('has no proxy and no listener when egress is off', async () => {
    const result = await closed.sandbox.run('off', {
      language: 'python',
      code: [
        'import os, socket',
        'print("HTTPS_PROXY" in os.environ)',
        'try:\n    socket.create_connection(("127.0.0.1", 3128), timeout=2)\nexcept OSError as e:\n    print(type(e).__name__)',
      ].join('\n'),
    });
    expect(result.stdout).toBe('False\nConnectionRefusedError\n');
  });
});
