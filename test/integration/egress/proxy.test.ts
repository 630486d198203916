import { once } from 'node:events';
import { request } from 'node:http';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  closeAll,
  echoServer,
  metricValue,
  openTunnel,
  rawExchange,
  recordingServer,
  selfSignedCertificate,
  startGateway,
} from './support.js';

// The gateway on real loopback sockets, with Node's own HTTP client and raw sockets as the sandbox's
// code, against local upstreams allowed by explicit 127.0.0.1:PORT entries.

let tls: { key: Buffer; cert: Buffer };
beforeAll(() => {
  tls = selfSignedCertificate();
});
afterEach(() => closeAll());

/** Node's http client speaking absolute form to the gateway, as `requests` does with HTTP_PROXY. */
function viaProxy(
  gatewayPort: number,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; statusMessage: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: gatewayPort, path: url, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            statusMessage: res.statusMessage ?? '',
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('egress gateway: proxy protocol', () => {
  it('tunnels CONNECT to an allowed destination, counting bytes both ways', async () => {
    const upstream = await echoServer();
    const gw = await startGateway(`127.0.0.1:${upstream.port}`);
    const socket = await openTunnel(gw.port, `127.0.0.1:${upstream.port}`);
    socket.write('ping through the tunnel');
    const [echoed] = (await once(socket, 'data')) as [Buffer];
    expect(echoed.toString()).toBe('ping through the tunnel');
    socket.end();
    await once(socket, 'close');
    await gw.settled();
    expect(gw.audits).toEqual([
      {
        ...gw.audits[0],
        audit: 'egress',
        thread: 'thread-hash',
        user: 'U1',
        destination: `127.0.0.1:${upstream.port}`,
        bytesUp: 23,
        bytesDown: 23,
        verdict: 'allowed',
      },
    ]);
    expect(await metricValue(gw.metrics, 'threadlab_egress_requests_total', 'verdict="allowed"')).toBe(1);
    expect(await metricValue(gw.metrics, 'threadlab_egress_bytes_total', 'direction="up"')).toBe(23);
  });

  it('carries TLS end to end through a CONNECT tunnel', async () => {
    const upstream = await recordingServer(tls);
    const gw = await startGateway(`127.0.0.1:${upstream.port}`);
    const raw = await openTunnel(gw.port, `127.0.0.1:${upstream.port}`);
    const secure = tlsConnect({ socket: raw, ca: tls.cert, host: '127.0.0.1' });
    await once(secure, 'secureConnect');
    secure.write('GET /simple HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    const chunks: Buffer[] = [];
    secure.on('data', (chunk: Buffer) => chunks.push(chunk));
    await once(secure, 'end');
    expect(Buffer.concat(chunks).toString()).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*upstream saw $/);
    expect(upstream.seen[0]?.url).toBe('/simple');
  });

  it('forwards an absolute-form request with the credential added over TLS, and only there', async () => {
    const credentialed = await recordingServer(tls);
    const plain = await recordingServer();
    const secret = 'Bearer s3cret-egress-value';
    const gw = await startGateway(`127.0.0.1:${credentialed.port}, 127.0.0.1:${plain.port}`, {
      credentials: [{ host: '127.0.0.1', port: credentialed.port, header: 'Authorization', value: secret }],
      ca: tls.cert,
    });

    const answer = await viaProxy(gw.port, `http://127.0.0.1:${credentialed.port}/v1/items?q=1`, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer forged-by-the-code',
        'Proxy-Authorization': 'Basic c2FuZGJveA==',
        'Content-Type': 'application/json',
      },
      body: '{"n":1}',
    });
    expect(answer).toMatchObject({ status: 200, body: 'upstream saw {"n":1}' });
    expect(credentialed.seen).toHaveLength(1);
    const seen = credentialed.seen[0]!;
    expect(seen).toMatchObject({ method: 'POST', url: '/v1/items?q=1', body: '{"n":1}' });
    expect(seen.headers.authorization).toBe(secret);
    expect(seen.headers['proxy-authorization']).toBeUndefined();
    expect(seen.headers.connection).toBe('close');
    expect(seen.headers.host).toBe(`127.0.0.1:${credentialed.port}`);

    const other = await viaProxy(gw.port, `http://127.0.0.1:${plain.port}/open`);
    expect(other).toMatchObject({ status: 200, body: 'upstream saw ' });
    expect(plain.seen[0]?.headers.authorization).toBeUndefined();
    await gw.settled();
    expect(gw.audits.map((a) => a.verdict)).toEqual(['allowed', 'allowed']);
    expect(gw.logText()).not.toContain('s3cret');
  });

  it('refuses a destination that is not allowed at once, naming the setting, without a lookup', async () => {
    const lookups: string[] = [];
    const gw = await startGateway('pypi.org', {
      lookup: async (name) => {
        lookups.push(name);
        return [{ address: '93.184.216.34', family: 4 }];
      },
    });
    const denied = await rawExchange(gw.port, 'CONNECT files.example.org:443 HTTP/1.1\r\nHost: x\r\n\r\n');
    // A hang would last the head or connect timeout (10 s); a loaded machine can take a while for the first answer.
    expect(denied.ms).toBeLessThan(2000);
    expect(denied.response).toMatch(
      /^HTTP\/1\.1 403 threadlab egress: files\.example\.org:443 is not in THREADLAB_EGRESS_ALLOW\r\n/,
    );
    expect(denied.response).toMatch(
      /\r\n\r\nthreadlab egress: files\.example\.org:443 is not in THREADLAB_EGRESS_ALLOW\n$/,
    );

    // What `requests` shows for a plain http:// URL: the status and the text body.
    const forwarded = await viaProxy(gw.port, 'http://files.example.org/simple/numpy/');
    expect(forwarded.status).toBe(403);
    expect(forwarded.body).toBe('threadlab egress: files.example.org:80 is not in THREADLAB_EGRESS_ALLOW\n');
    // pypi.org is allowed on 80 and 443, not on 8080.
    const port = await rawExchange(gw.port, 'CONNECT pypi.org:8080 HTTP/1.1\r\n\r\n');
    expect(port.response).toMatch(/^HTTP\/1\.1 403 .*pypi\.org:8080 is not in THREADLAB_EGRESS_ALLOW/);
    expect(lookups).toEqual([]);
    await gw.settled();
    expect(gw.audits.map((a) => [a.destination, a.verdict])).toEqual([
      ['files.example.org:443', 'denied'],
      ['files.example.org:80', 'denied'],
      ['pypi.org:8080', 'denied'],
    ]);
    expect(await metricValue(gw.metrics, 'threadlab_egress_requests_total', 'verdict="denied"')).toBe(3);
  });

  it('answers requests that are not proxy requests with a clear 400/405/411, and keeps serving', async () => {
    const upstream = await echoServer();
    const gw = await startGateway(`127.0.0.1:${upstream.port}`);
    const cases: Array<[string, RegExp]> = [
      ['GET / HTTP/1.1\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 400 threadlab egress: this is a proxy/],
      ['GET https://a.example/ HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 .*HTTPS_PROXY/],
      ['\x16\x03\x01garbage\r\n\r\n', /^HTTP\/1\.1 400 .*request line/],
      ['CONNECT nohost HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 .*CONNECT needs host:port/],
      [`TRACE http://127.0.0.1:${upstream.port}/ HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 405 .*TRACE is not forwarded/],
      [
        `POST http://127.0.0.1:${upstream.port}/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        /^HTTP\/1\.1 411 .*Content-Length/,
      ],
      [
        `POST http://127.0.0.1:${upstream.port}/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
        /^HTTP\/1\.1 400 .*invalid Content-Length/,
      ],
      ['GET http://user:pw@a.example/ HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 .*passwords in the URL/],
    ];
    for (const [request, expected] of cases) expect((await rawExchange(gw.port, request)).response).toMatch(expected);
    const socket = await openTunnel(gw.port, `127.0.0.1:${upstream.port}`);
    socket.destroy();
  });

  it('forwards exactly the declared body: bytes after it never reach the upstream', async () => {
    const upstream = await recordingServer();
    const gw = await startGateway(`127.0.0.1:${upstream.port}`);
    const smuggled =
      `POST http://127.0.0.1:${upstream.port}/a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello` +
      `GET /second HTTP/1.1\r\nHost: other.example\r\n\r\n`;
    const { response } = await rawExchange(gw.port, smuggled);
    expect(response).toMatch(/upstream saw hello$/);
    expect(upstream.seen.map((r) => r.url)).toEqual(['/a']);
  });
});
