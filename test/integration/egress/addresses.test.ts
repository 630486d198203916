import { afterEach, describe, expect, it } from 'vitest';
import type { EgressLookup } from '../../../src/egress/destination.js';
import { closeAll, echoServer, openTunnel, rawExchange, startGateway } from './support.js';

// Names are resolved by the gateway, once; every address of the answer is checked and the checked
// address is the one connected to. Loopback, link-local and private addresses are refused unless an
// IP or CIDR entry lists them.

afterEach(() => closeAll());

/** A resolver with fixed answers, recording each lookup. */
function fixedResolver(answers: Record<string, string[]>): EgressLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (name: string) => {
    calls.push(name);
    const addresses = answers[name];
    if (!addresses) throw Object.assign(new Error(`no such name ${name}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

describe('egress gateway: addresses', () => {
  it('refuses localhost allowed by name, because it resolves to the loopback (system resolver)', async () => {
    const upstream = await echoServer();
    const gw = await startGateway(`localhost:${upstream.port}`);
    const { response, ms } = await rawExchange(gw.port, `CONNECT localhost:${upstream.port} HTTP/1.1\r\n\r\n`);
    expect(ms).toBeLessThan(2000);
    expect(response).toMatch(
      new RegExp(
        `^HTTP/1\\.1 403 threadlab egress: localhost:${upstream.port} resolves to a loopback address \\((127\\.0\\.0\\.1|::1)\\); only an IP or CIDR entry in THREADLAB_EGRESS_ALLOW allows that`,
      ),
    );
    await gw.settled();
    expect(gw.audits[0]).toMatchObject({ verdict: 'denied', destination: `localhost:${upstream.port}` });
  });

  it('refuses names resolving to cloud metadata or private addresses', async () => {
    const lookup = fixedResolver({
      'metadata.test': ['169.254.169.254'],
      'private.test': ['10.1.2.3'],
      'mapped.test': ['::ffff:169.254.169.254'],
      'ula.test': ['fd00::1'],
    });
    const gw = await startGateway('*.test', { lookup });
    const expectations: Array<[string, string]> = [
      ['metadata.test', 'resolves to a link-local address (169.254.169.254, cloud metadata)'],
      ['private.test', 'resolves to a private address (10.1.2.3)'],
      ['mapped.test', 'resolves to a link-local address (169.254.169.254, cloud metadata)'],
      ['ula.test', 'resolves to a private address (fd00::1)'],
    ];
    for (const [name, reason] of expectations) {
      const { response } = await rawExchange(gw.port, `CONNECT ${name}:443 HTTP/1.1\r\n\r\n`);
      expect(response).toContain(`HTTP/1.1 403 threadlab egress: ${name}:443 ${reason}`);
    }
    // The same through absolute form.
    const { response } = await rawExchange(gw.port, 'GET http://metadata.test/latest/meta-data/ HTTP/1.1\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 403 .*metadata\.test:80 resolves to a link-local address/);
    expect(lookup.calls).toEqual([...expectations.map(([name]) => name), 'metadata.test']);
  });

  it('refuses an answer that mixes a usable address with a private one (rebinding)', async () => {
    const upstream = await echoServer();
    // The first address is usable (listed loopback): a gateway checking only the one it connects to
    // would let this through, and any later connection could be steered to the second.
    const lookup = fixedResolver({ 'mixed.test': ['127.0.0.1', '10.1.2.3'] });
    const gw = await startGateway(`*.test:${upstream.port}, 127.0.0.1:${upstream.port}`, { lookup });
    const { response } = await rawExchange(gw.port, `CONNECT mixed.test:${upstream.port} HTTP/1.1\r\n\r\n`);
    expect(response).toContain(
      `HTTP/1.1 403 threadlab egress: mixed.test:${upstream.port} resolves to a private address (10.1.2.3)`,
    );
  });

  it('refuses IP literals in refused ranges even when any destination is allowed', async () => {
    const gw = await startGateway('*:*');
    for (const [target, reason] of [
      ['169.254.169.254:80', '169.254.169.254:80 is a link-local address'],
      ['127.0.0.1:22', '127.0.0.1:22 is a loopback address'],
      ['[::ffff:10.0.0.1]:443', '10.0.0.1:443 is a private address'],
      ['[::1]:443', '[::1]:443 is a loopback address'],
      ['0.0.0.0:80', '0.0.0.0:80 is an unspecified address'],
    ]) {
      const { response } = await rawExchange(gw.port, `CONNECT ${target} HTTP/1.1\r\n\r\n`);
      expect(response).toContain(`HTTP/1.1 403 threadlab egress: ${reason}`);
    }
  });

  it('connects to the one checked answer, without resolving again, when an IP entry lists it', async () => {
    const upstream = await echoServer();
    let answers = 0;
    // Answers the loopback first, then the metadata address: a second lookup would be refused.
    const lookup: EgressLookup = async () => [
      { address: answers++ === 0 ? '127.0.0.1' : '169.254.169.254', family: 4 },
    ];
    const gw = await startGateway(`internal.test:${upstream.port}, 127.0.0.1:${upstream.port}`, { lookup });
    const socket = await openTunnel(gw.port, `internal.test:${upstream.port}`);
    socket.write('x');
    await new Promise((resolve) => socket.once('data', resolve));
    socket.destroy();
    expect(answers).toBe(1);
  });

  it('says when a name does not resolve', async () => {
    const gw = await startGateway('*.test', { lookup: fixedResolver({}) });
    const { response } = await rawExchange(gw.port, 'CONNECT nowhere.test:443 HTTP/1.1\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 502 threadlab egress: nowhere\.test:443 does not resolve \(ENOTFOUND\)/);
    await gw.settled();
    expect(gw.audits[0]?.verdict).toBe('failed');
  });
});
