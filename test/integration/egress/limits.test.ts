import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, closed, echoServer, openTunnel, rawExchange, startGateway } from './support.js';

// Limits cut a flood: every limit of a run's budget and of one request, hit on real sockets.

afterEach(() => closeAll());

describe('egress gateway: limits', () => {
  it('cuts a run at THREADLAB_EGRESS_MAX_MB, counting both directions, and refuses what comes after', async () => {
    const upstream = await echoServer();
    const maxBytes = 256 * 1024;
    const gw = await startGateway(`127.0.0.1:${upstream.port}`, { maxBytes });
    const socket = await openTunnel(gw.port, `127.0.0.1:${upstream.port}`);
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => undefined);
    const flood = Buffer.alloc(16 * 1024, 1);
    // Writes until the gateway cuts the tunnel (2 MiB would flow otherwise).
    for (let i = 0; i < 128 && !socket.destroyed && socket.writable; i++) {
      if (!socket.write(flood)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
    }
    await closed(socket);
    await gw.settled();
    const [audit] = gw.audits;
    expect(audit).toMatchObject({ verdict: 'cut', reason: expect.stringContaining('THREADLAB_EGRESS_MAX_MB') });
    expect(audit!.bytesUp + audit!.bytesDown).toBeLessThanOrEqual(maxBytes);
    // Only the chunk that would have crossed the limit (at most 64 KiB read at once) was held back.
    expect(audit!.bytesUp + audit!.bytesDown).toBeGreaterThan(maxBytes - 64 * 1024 - flood.length);
    expect(received).toBeLessThanOrEqual(maxBytes);

    const after = await rawExchange(gw.port, `CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\n\r\n`);
    expect(after.response).toMatch(/^HTTP\/1\.1 429 threadlab egress: .*THREADLAB_EGRESS_MAX_MB/);
  });

  it('refuses connections past THREADLAB_EGRESS_MAX_CONNECTIONS', async () => {
    const upstream = await echoServer();
    const gw = await startGateway(`127.0.0.1:${upstream.port}`, { maxConnections: 3 });
    const open = [];
    for (let i = 0; i < 3; i++) open.push(await openTunnel(gw.port, `127.0.0.1:${upstream.port}`));
    const { response } = await rawExchange(gw.port, `CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\n\r\n`);
    expect(response).toMatch(/^HTTP\/1\.1 429 threadlab egress: .*THREADLAB_EGRESS_MAX_CONNECTIONS/);
    for (const socket of open) socket.destroy();
    // Closing connections does not give them back: the limit counts what a run opened.
    await gw.settled();
    const again = await rawExchange(gw.port, `CONNECT 127.0.0.1:${upstream.port} HTTP/1.1\r\n\r\n`);
    expect(again.response).toMatch(/^HTTP\/1\.1 429 /);
    await gw.settled();
    expect(gw.audits.map((a) => a.verdict).sort()).toEqual(['allowed', 'allowed', 'allowed', 'denied', 'denied']);
  });

  it('closes every connection of a run at its deadline, and refuses new ones', async () => {
    const upstream = await echoServer();
    const gw = await startGateway(`127.0.0.1:${upstream.port}`, { budgetMs: 400 });
    const started = performance.now();
    const tunnels = [
      await openTunnel(gw.port, `127.0.0.1:${upstream.port}`),
      await openTunnel(gw.port, `127.0.0.1:${upstream.port}`),
    ];
    // A third exchange that never sends its head is closed too.
    const silent = connect(gw.port, '127.0.0.1');
    await Promise.all([...tunnels, silent].map(closed));
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(3000);
    await gw.settled();
    expect(gw.audits.map((a) => a.verdict)).toEqual(['cut', 'cut', 'cut']);
    expect(gw.audits.map((a) => a.reason)).toEqual(Array(3).fill("this run's time is up"));
    await closed(connect(gw.port, '127.0.0.1'));
  });

  it('answers 431 to a request head over the limit and 408 to one that does not arrive in time', async () => {
    const gw = await startGateway('*', { maxHeadBytes: 4096, headTimeoutMs: 300 });
    const big = await rawExchange(gw.port, `GET http://a.example/ HTTP/1.1\r\nX-Pad: ${'a'.repeat(8000)}\r\n\r\n`);
    expect(big.response).toMatch(/^HTTP\/1\.1 431 threadlab egress: the request head is larger than 4096 bytes/);
    // Never more than the limit is held: a head without an end is refused as soon as it passes it.
    const endless = await rawExchange(gw.port, `GET http://a.example/ HTTP/1.1\r\n${'X: y\r\n'.repeat(2000)}`);
    expect(endless.response).toMatch(/^HTTP\/1\.1 431 /);
    const slow = await rawExchange(gw.port, 'CONNECT pypi.org:443 HTTP/1.1\r\n');
    expect(slow.response).toMatch(/^HTTP\/1\.1 408 threadlab egress: the request head did not arrive within 300 ms/);
    expect(slow.ms).toBeGreaterThanOrEqual(250);
    expect(slow.ms).toBeLessThan(2000);
  });

  it('gives up on an upstream that does not answer within the connect timeout (504)', async () => {
    const gw = await startGateway('*.test', {
      connectTimeoutMs: 300,
      lookup: () => new Promise(() => undefined),
    });
    const { response, ms } = await rawExchange(gw.port, 'CONNECT slow.test:443 HTTP/1.1\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 504 threadlab egress: slow\.test:443 did not resolve within 300 ms/);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(2000);
  });

  it('says when an allowed upstream refuses the connection (502)', async () => {
    const upstream = await echoServer();
    const port = upstream.port;
    upstream.close();
    await once(upstream, 'close');
    const gw = await startGateway(`127.0.0.1:${port}`);
    const { response } = await rawExchange(gw.port, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`);
    expect(response).toMatch(
      new RegExp(`^HTTP/1\\.1 502 threadlab egress: 127\\.0\\.0\\.1:${port} could not be reached \\(ECONNREFUSED\\)`),
    );
  });
});
