import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgressAuditRecord } from '../../../src/egress/egress-record.js';
import { FakePackageIndex, PROBE } from '../../fakes/fake-package-index.js';
import { cliEnv, runCli } from './cli-process.js';

// Egress as shipped (issue 16): `threadlab exec` starts its daemon with the environment it was given, so
// THREADLAB_EGRESS_ALLOW reaches the gateway only if the whole chain (config, daemon, createSandbox, the relay)
// carries it. The index is served by this test on 127.0.0.1 and allowed by an explicit 127.0.0.1:PORT entry.

const index = new FakePackageIndex();
const onDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-egress-on-'));
const offDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-egress-off-'));
let onEnv: Record<string, string | undefined>;
const offEnv = cliEnv(offDir);

beforeAll(async () => {
  await index.start();
  // Info level: the audit lines are info records in the daemon's log (THREADLAB_DATA_DIR/daemon.log).
  onEnv = cliEnv(onDir, { THREADLAB_EGRESS_ALLOW: `127.0.0.1:${index.port}`, THREADLAB_LOG_LEVEL: 'info' });
});

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env: onEnv, cwd: onDir });
  await runCli(['daemon', 'stop'], { env: offEnv, cwd: offDir });
  await index.stop();
  rmSync(onDir, { recursive: true, force: true });
  rmSync(offDir, { recursive: true, force: true });
});

const pip = (url: string) =>
  `pip install --retries 0 --timeout 10 --index-url ${url} --trusted-host 127.0.0.1 ${PROBE.project} 2>&1 | tail -3`;

/** The daemon's audit records (one JSON line each among its other log lines). */
function auditLines(dataDir: string): EgressAuditRecord[] {
  return readFileSync(join(dataDir, 'daemon.log'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as EgressAuditRecord)
    .filter((record) => record.audit === 'egress');
}

describe('threadlab exec with THREADLAB_EGRESS_ALLOW (shipped process, real Docker)', () => {
  it('pip installs from the allowed index in one exec and the next exec of the --session imports it', async () => {
    const install = await runCli(['exec', '--session', 'pkgs', '--lang', 'bash', '-'], {
      env: onEnv,
      cwd: onDir,
      stdin: pip(index.url),
    });
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain(`Successfully installed ${PROBE.project}-${PROBE.version}`);
    expect(index.requests).toContain(`/simple/${PROBE.project}/`);
    expect(index.requests.some((path) => path.startsWith('/files/'))).toBe(true);

    const use = await runCli(['exec', '--session', 'pkgs', '-'], {
      env: onEnv,
      cwd: onDir,
      stdin: `import ${PROBE.module}\nprint(${PROBE.module}.VALUE, ${PROBE.module}.__file__)`,
    });
    expect(use.code, use.stderr).toBe(0);
    expect(use.stdout).toBe(
      `${PROBE.value} /mnt/data/.local/lib/python3.13/site-packages/${PROBE.module}/__init__.py\n`,
    );

    // One audit line per request: the gateway serves one request per relayed connection, and every request
    // that reached the index went through it.
    const audits = auditLines(onDir);
    const toIndex = audits.filter((a) => a.destination === `127.0.0.1:${index.port}`);
    expect(toIndex.length).toBe(index.requests.length);
    for (const audit of toIndex) {
      expect(audit).toMatchObject({ verdict: 'allowed', thread: expect.stringMatching(/^[0-9a-f]{24}$/) });
      expect(audit.bytesDown).toBeGreaterThan(0);
    }

    // The same requests reach the audit trail (THREADLAB_AUDIT_LOG, by default <dataDir>/audit.jsonl) as egress
    // lines of the run's thread, and `threadlab audit --kind egress` prints them.
    const listed = await runCli(['audit', '--kind', 'egress', '--json'], { env: onEnv, cwd: onDir });
    expect(listed.code, listed.stderr).toBe(0);
    const trail = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.destination === `127.0.0.1:${index.port}`);
    expect(trail).toHaveLength(index.requests.length);
    const runs = readFileSync(join(onDir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"kind":"run"'))
      .map((line) => JSON.parse(line) as { threadHash: string; language: string; codeSha256: string; status: string });
    // Each exec is one run line (exec runs past the bot, in the daemon).
    expect(runs.map((r) => [r.language, r.status])).toEqual([
      ['bash', 'ok'],
      ['python', 'ok'],
    ]);
    expect(runs[0]!.codeSha256).toBe(createHash('sha256').update(pip(index.url)).digest('hex'));
    const installRunThread = runs[0]!.threadHash;
    for (const line of trail) {
      expect(line).toMatchObject({ kind: 'egress', verdict: 'allowed', threadHash: installRunThread, thread: null });
      expect(line.bytesDown).toBeGreaterThan(0);
    }
  });
});

describe('threadlab exec without THREADLAB_EGRESS_ALLOW', () => {
  it('pip fails at once with no proxy and no route, and the code sees no HTTP_PROXY', async () => {
    const before = index.requests.length;
    const started = Date.now();
    const install = await runCli(['exec', '--session', 'nonet', '--lang', 'bash', '-'], {
      env: offEnv,
      cwd: offDir,
      stdin: pip(index.url),
    });
    const seconds = (Date.now() - started) / 1000;
    expect(install.stdout).toMatch(/No matching distribution|Connection refused|Failed to establish/);
    expect(install.stdout).not.toContain('Successfully installed');
    // Refused by the container's own loopback, not a hang until a timeout (the daemon's start included).
    expect(seconds).toBeLessThan(60);
    expect(index.requests.length).toBe(before);

    const env = await runCli(['exec', '--session', 'nonet', '-'], {
      env: offEnv,
      cwd: offDir,
      stdin:
        'import os\nprint(sorted(k for k in os.environ if "proxy" in k.lower() or k.startswith("THREADLAB_EGRESS")))',
    });
    expect(env.code, env.stderr).toBe(0);
    expect(env.stdout).toBe('[]\n');
  });
});

describe('a bad egress setting stops the CLI with an error naming the variable', () => {
  const dataDir = join(offDir, 'bad');
  const cases: { what: string; env: Record<string, string>; message: RegExp }[] = [
    {
      what: 'a malformed THREADLAB_EGRESS_ALLOW',
      env: { THREADLAB_EGRESS_ALLOW: '127.0.0.1:99999' },
      message: /THREADLAB_EGRESS_ALLOW: "127\.0\.0\.1:99999": the port must be 1-65535/,
    },
    {
      what: 'a credential naming an unset variable',
      env: {
        THREADLAB_EGRESS_ALLOW: '127.0.0.1:8443',
        THREADLAB_EGRESS_CREDENTIALS: '127.0.0.1:8443=X-Api-Key:THREADLAB_TEST_UNSET_TOKEN',
      },
      message:
        /THREADLAB_EGRESS_CREDENTIALS: 127\.0\.0\.1:8443 takes its X-Api-Key header from THREADLAB_TEST_UNSET_TOKEN, which is not set/,
    },
  ];
  for (const c of cases) {
    it(`${c.what}: doctor fails on it and exec refuses to run`, async () => {
      const env = cliEnv(dataDir, c.env);
      const doctor = await runCli(['doctor'], { env, cwd: offDir });
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toMatch(/✘ Configuration\s+Invalid configuration:/);
      expect(doctor.stdout).toMatch(c.message);
      const exec = await runCli(['exec', '-'], { env, cwd: offDir, stdin: 'print("ran")' });
      expect(exec.code).toBe(2);
      expect(exec.stderr).toMatch(/^Invalid configuration:\n/);
      expect(exec.stderr).toMatch(c.message);
      expect(exec.stdout).not.toContain('ran');
    });
  }
});
