import { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, echoServer, startGateway } from './support.js';

// The sandbox relay hands the gateway a plain stream.Duplex per connection, not a socket: the same
// exchange over such a pair, and a relay that breaks.

afterEach(() => closeAll());

/** Two connected in-memory Duplex ends, as a relay over stdio presents one connection. */
function duplexPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const end = (other: () => Duplex) =>
    new Duplex({
      allowHalfOpen: true,
      read() {},
      write(chunk: Buffer, _encoding, done) {
        other().push(chunk);
        done();
      },
      final(done) {
        other().push(null);
        done();
      },
    });
  ends.push(
    end(() => ends[1]!),
    end(() => ends[0]!),
  );
  return [ends[0]!, ends[1]!];
}

function readUntil(stream: Duplex, text: string): Promise<string> {
  return new Promise((resolve) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (seen.includes(text)) {
        stream.off('data', onData);
        resolve(seen);
      }
    };
    stream.on('data', onData);
  });
}

describe('egress gateway: served over a plain Duplex', () => {
  it('tunnels through an in-memory stream pair and returns once the sandbox side ends', async () => {
    const upstream = await echoServer();
    const gw = await startGateway(`127.0.0.1:${upstream.port}`);
    const [sandboxSide, gatewaySide] = duplexPair();
    const handled = gw.gateway.handle(gatewaySide, { thread: 't' }, gw.budget);
    sandboxSide.write(`CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\n\r\n`);
    expect(await readUntil(sandboxSide, '\r\n\r\n')).toBe('HTTP/1.1 200 Connection established\r\n\r\n');
    sandboxSide.write('through memory');
    expect(await readUntil(sandboxSide, 'memory')).toBe('through memory');
    sandboxSide.end();
    sandboxSide.resume();
    await handled;
    expect(gw.audits.at(-1)).toMatchObject({ verdict: 'allowed', bytesUp: 14, bytesDown: 14 });
  });

  it('returns without throwing when the relay breaks mid-head or mid-tunnel', async () => {
    const upstream = await echoServer();
    const gw = await startGateway(`127.0.0.1:${upstream.port}`, { headTimeoutMs: 60_000 });
    const [sandboxSide, gatewaySide] = duplexPair();
    const handled = gw.gateway.handle(gatewaySide, { thread: 't' }, gw.budget);
    sandboxSide.write('CONNECT 127.0.0.1');
    gatewaySide.destroy(new Error('relay broke'));
    await expect(handled).resolves.toBeUndefined();

    const [sandbox2, gateway2] = duplexPair();
    const second = gw.gateway.handle(gateway2, { thread: 't' }, gw.budget);
    sandbox2.write(`CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\n\r\n`);
    await readUntil(sandbox2, '\r\n\r\n');
    gateway2.destroy(new Error('relay broke'));
    await expect(second).resolves.toBeUndefined();

    // Handed over already closed: answered at once, not after the head timeout.
    const [, gateway3] = duplexPair();
    gateway3.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    await gw.gateway.handle(gateway3, { thread: 't' }, gw.budget);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(gw.audits.map((a) => a.verdict)).toEqual(['denied', 'allowed', 'denied']);
  });
});
