import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgressAuditRecord } from '../../../src/egress/egress-record.js';
import { EgressGateway } from '../../../src/egress/gateway.js';
import { parseAllowlist } from '../../../src/egress/policy.js';
import { createLogger } from '../../../src/logger.js';
import { withAuditScope } from '../../../src/governance/audit/audit-scope.js';
import { auditedEgress } from '../../../src/governance/audit/audited-egress.js';
import { FakePackageIndex, PROBE } from '../../fakes/fake-package-index.js';
import { closeAll, recordingServer, selfSignedCertificate, type SeenRequest } from '../egress/support.js';
import { makeSandbox, testRuntime, type TestSandbox } from './helpers.js';

// Egress end to end against the real engine and the real gateway, on loopback only: pip from a local index the
// test serves, an API whose credential only the gateway holds, refused destinations, and limits. Every upstream is
// on 127.0.0.1 and allowed by an explicit 127.0.0.1:PORT entry (a name resolving to loopback is refused).

const SECRET = 'tl-secret-7c1f0d2e9b';
const index = new FakePackageIndex();
let api: { port: number; seen: SeenRequest[] };
let flood: { port: number; seen: SeenRequest[] };
let t: TestSandbox;
const audits: EgressAuditRecord[] = [];

beforeAll(async () => {
  await index.start();
  const cert = selfSignedCertificate();
  api = await recordingServer(cert);
  flood = await recordingServer();
  const logger = createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          const record = JSON.parse(line) as EgressAuditRecord & { audit?: string };
          if (record.audit === 'egress') audits.push(record);
        }
        done();
      },
    }),
  });
  const gateway = new EgressGateway({
    allow: parseAllowlist(`127.0.0.1:${index.port},127.0.0.1:${api.port},localhost:${flood.port}`),
    credentials: [{ host: '127.0.0.1', port: api.port, header: 'X-Api-Key', value: SECRET }],
    maxConnections: 24,
    maxBytes: 4 * 1024 * 1024,
    logger,
    ca: cert.cert,
  });
  t = await makeSandbox('egress', { timeoutMs: 60_000, maxSessions: 1 }, undefined, {
    egress: auditedEgress(gateway),
  });
});

afterAll(async () => {
  await t?.close();
  await index.stop();
  closeAll();
});

const pip = (url: string) =>
  `pip install --retries 0 --timeout 10 --index-url ${url} --trusted-host 127.0.0.1 ${PROBE.project} 2>&1 | tail -3`;

describe(`egress through the gateway (${testRuntime()})`, () => {
  it('installs a package from an allowed index into the thread, importable at once and after a recycle', async () => {
    const install = await withAuditScope({ user: 'U7', thread: null, job: null }, () =>
      t.sandbox.run('pip', { language: 'bash', code: pip(index.url) }),
    );
    expect(install.stdout).toContain(`Successfully installed ${PROBE.project}-${PROBE.version}`);
    expect(index.requests).toContain(`/simple/${PROBE.project}/`);
    const used = await t.sandbox.run('pip', {
      language: 'python',
      code: `import ${PROBE.module}\nprint(${PROBE.module}.VALUE, ${PROBE.module}.__file__)`,
    });
    expect(used.stdout).toBe(`42 /mnt/data/.local/lib/python3.13/site-packages/${PROBE.module}/__init__.py\n`);
    // Another thread takes the only container (maxSessions 1): the package comes back with the thread's files.
    await t.sandbox.run('other', { language: 'python', code: 'pass' });
    const again = await t.sandbox.run('pip', {
      language: 'python',
      code: `import ${PROBE.module}\nprint(${PROBE.module}.VALUE)`,
    });
    expect(again.stdout).toBe('42\n');
    const audit = audits.find((a) => a.destination.includes(String(index.port)) && a.verdict === 'allowed');
    expect(audit).toMatchObject({ user: 'U7', thread: expect.stringMatching(/^[0-9a-f]{24}$/) });
  });

  it('refuses an index that is not allowed at once, with a message naming THREADLAB_EGRESS_ALLOW', async () => {
    const denied = await t.sandbox.run('deny', {
      language: 'python',
      code: [
        'import time, urllib.request, urllib.error',
        'started = time.monotonic()',
        'for url in ["http://127.0.0.2:9/simple/", "http://pypi.org/simple/"]:',
        '    try:',
        '        urllib.request.urlopen(url, timeout=20)',
        '    except urllib.error.HTTPError as e:',
        '        print(e.code, e.read().decode().strip())',
        'print("fast", time.monotonic() - started < 5)',
      ].join('\n'),
    });
    expect(denied.stdout).toMatch(/^403 .*127\.0\.0\.2:9.*THREADLAB_EGRESS_ALLOW/m);
    expect(denied.stdout).toMatch(/^403 .*pypi\.org.*THREADLAB_EGRESS_ALLOW/m);
    expect(denied.stdout).toContain('fast True');
  });

  it('adds the credential on the way out over TLS; the sandbox never holds it', async () => {
    const call = await t.sandbox.run('api', {
      language: 'python',
      code: `import urllib.request\nprint(urllib.request.urlopen("http://127.0.0.1:${api.port}/whoami", data=b"hi").read().decode())`,
    });
    expect(call.stdout).toBe('upstream saw hi\n');
    expect(api.seen.at(-1)?.headers['x-api-key']).toBe(SECRET);
    const look = await t.sandbox.run('api', {
      language: 'bash',
      code: `env | grep -c ${SECRET} ; grep -rl ${SECRET} /mnt/data /tmp 2>/dev/null | wc -l ; cat /proc/1/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ${SECRET}`,
    });
    expect(look.stdout.trim().split('\n')).toEqual(['0', '0', '0']);
  });

  it('refuses the metadata address, private ranges, and a name that resolves to loopback', async () => {
    const probes = await t.sandbox.run('addr', {
      language: 'python',
      code: [
        'import socket, urllib.request, urllib.error',
        `for url in ["http://169.254.169.254/latest/meta-data/", "http://10.1.2.3/", "http://localhost:${flood.port}/"]:`,
        '    try:',
        '        urllib.request.urlopen(url, timeout=20)',
        '        print("reached", url)',
        '    except urllib.error.HTTPError as e:',
        '        print(e.code, e.read().decode().strip())',
        // Without the proxy there is no route at all: the container has no network.
        'try:\n    socket.create_connection(("169.254.169.254", 80), timeout=3)\n    print("direct reached")',
        'except OSError as e:\n    print("direct", type(e).__name__)',
      ].join('\n'),
    });
    const lines = probes.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^403 .*169\.254\.169\.254/);
    expect(lines[1]).toMatch(/^403 .*10\.1\.2\.3/);
    expect(lines[2]).toMatch(/^403 .*localhost.*(loopback|127\.0\.0\.1)/);
    expect(lines[3]).toMatch(/^direct (OSError|ConnectionRefusedError|TimeoutError)/);
    expect(probes.stdout).not.toContain('reached');
    expect(flood.seen).toHaveLength(0);
  });

  it('with egress on, the network corpus still fails everywhere but through the gateway to allowed destinations', async () => {
    const corpus = await t.sandbox.run('corpus', {
      language: 'python',
      code: [
        'import os, socket',
        'def attempt(name, fn):',
        '    try:\n        fn(); print(name, "reached")',
        '    except OSError as e:\n        print(name, "blocked", type(e).__name__)',
        'attempt("tcp", lambda: socket.create_connection(("1.1.1.1", 53), timeout=2))',
        'attempt("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("8.8.8.8", 53)))',
        'attempt("dns", lambda: socket.getaddrinfo("pypi.org", 443))',
        `attempt("host", lambda: socket.create_connection(("172.17.0.1", ${index.port}), timeout=2))`,
        'print(sorted(os.listdir("/sys/class/net")))',
        's = socket.create_connection(("127.0.0.1", 3128))',
        's.sendall(b"CONNECT 1.1.1.1:53 HTTP/1.1\\r\\nHost: 1.1.1.1:53\\r\\n\\r\\n")',
        'print(s.recv(200).split(b"\\r\\n")[0].decode())',
      ].join('\n'),
    });
    const out = corpus.stdout;
    for (const name of ['tcp', 'udp', 'dns', 'host']) expect(out).toMatch(new RegExp(`^${name} blocked`, 'm'));
    expect(out).toContain("['lo']");
    expect(out).toMatch(/^HTTP\/1\.1 403 .*1\.1\.1\.1:53/m);
  });

  it("cuts a flood: the run's bytes and connections are capped", async () => {
    const flooding = await t.sandbox.run('flood', {
      language: 'python',
      code: [
        'import socket, urllib.request, urllib.error',
        `url = "http://127.0.0.1:${api.port}/upload"`,
        'sent = 0',
        'try:',
        '    for _ in range(8):',
        '        urllib.request.urlopen(url, data=b"x" * (1024 * 1024), timeout=20)',
        '        sent += 1',
        'except Exception as e:',
        '    print("cut after", sent, type(e).__name__)',
        'codes = []',
        'for _ in range(30):',
        '    try:',
        `        urllib.request.urlopen("http://127.0.0.1:${index.port}/simple/", timeout=20)`,
        '        codes.append(200)',
        '    except urllib.error.HTTPError as e:',
        '        codes.append(e.code)',
        '    except Exception:',
        '        codes.append(0)',
        'print("codes", sorted(set(codes)))',
      ].join('\n'),
    });
    const cut = /cut after (\d+)/.exec(flooding.stdout);
    expect(Number(cut?.[1])).toBeLessThan(4); // 4 MiB per run
    expect(flooding.stdout).toMatch(/codes \[.*(429|403)/);
  });
});
