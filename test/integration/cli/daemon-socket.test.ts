import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { configFingerprint } from '../../../cli/daemon/fingerprint.js';
import { cliEnv, runCli } from './cli-process.js';

// "Another local user" is uid 65534 (nobody); the tests run as root, as the reported attack did.
const NOBODY = 65534;
const base = mkdtempSync(join(tmpdir(), 'threadlab-cli-socket-'));
const dataDir = join(base, 'data');
const secret = join(base, 'root-only.txt');
const env = cliEnv(dataDir);

/**
 * The checkout may sit under a private directory (a CI clone in `mktemp -d`, mode 0700), where uid 65534
 * could not even load the CLI and would fail for that reason instead of the one under test. Its
 * ancestors get the search bit for others (no read) while these tests run, and get their modes back.
 */
const restoreModes: { path: string; mode: number }[] = [];
function letOthersReachCheckout(): void {
  let dir = fileURLToPath(new URL('../../..', import.meta.url));
  for (;;) {
    const mode = statSync(dir).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      restoreModes.push({ path: dir, mode });
      chmodSync(dir, mode | 0o001);
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
}

beforeAll(() => {
  letOthersReachCheckout();
  chmodSync(base, 0o755); // others may traverse to the data directory, as under a home directory
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755); // a pre-existing data directory open to others
  writeFileSync(secret, 'root:$6$secret-hash:19000:0:99999:7:::\n');
  chmodSync(secret, 0o600);
});

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env });
  rmSync(base, { recursive: true, force: true });
  for (const { path, mode } of restoreModes) chmodSync(path, mode);
});

/** The reported attack: as another user, POST a chat naming a root-only file as an attachment. */
function attackAsNobody(socketPath: string): Promise<string> {
  const script = `
    const http = require('node:http');
    const req = http.request({ socketPath: ${JSON.stringify(socketPath)}, path: '/chat', method: 'POST' }, (res) => {
      let t = ''; res.on('data', (d) => (t += d)); res.on('end', () => console.log('answered ' + res.statusCode + ' ' + t));
    });
    req.on('error', (e) => console.log('refused ' + e.code));
    req.end(JSON.stringify({ thread: 'x', text: '', attachments: [${JSON.stringify(secret)}] }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { uid: NOBODY, gid: NOBODY, cwd: '/' });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve(out.trim()));
  });
}

/** POSTs a raw body to the daemon as this (same) user, with the configuration's fingerprint. */
function rawCall(path: string, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: join(dataDir, 'cli.sock'),
        path,
        method: 'POST',
        agent: false,
        headers: { 'x-threadlab-config': configFingerprint(loadConfig(env)) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the CLI daemon socket and data directory (real processes, real Docker)', () => {
  it('under umask 000: the data directory is made private, the socket and log are 0600, another user is refused', async () => {
    const run = await runCli(['exec', '-'], { env, umask: '000', stdin: 'print("hi")' });
    expect(run.stdout).toBe('hi\n');
    expect(run.stderr).toContain(`${dataDir} was open to other users (mode 755); made it private (700).`);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const socket = lstatSync(join(dataDir, 'cli.sock'));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect(lstatSync(join(dataDir, 'daemon.log')).mode & 0o777).toBe(0o600);

    expect(await attackAsNobody(join(dataDir, 'cli.sock'))).toBe('refused EACCES');
    // Even with the directory open again (say, a user's chmod), the socket itself keeps them out.
    chmodSync(dataDir, 0o755);
    expect(await attackAsNobody(join(dataDir, 'cli.sock'))).toBe('refused EACCES');
    chmodSync(dataDir, 0o700);
  });

  it('the daemon opens no path a caller names: an attachment given as a path is refused', async () => {
    const res = await rawCall(
      '/chat',
      Buffer.from(`${JSON.stringify({ thread: 'x', text: '', attachments: [secret] })}\n`),
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('"type":"failure"');
    expect(res.text).toContain('Malformed chat request');
    expect(res.text).not.toContain('secret-hash');
  });

  it('refuses code over the limit of one call', async () => {
    const code = `# ${'x'.repeat(9 * 1024 * 1024)}`;
    const res = await rawCall('/exec', Buffer.from(JSON.stringify({ language: 'python', code })));
    expect(res.text).toContain('over the limit of 8388608 bytes');
    const cli = await runCli(['exec', '-'], { env, stdin: code });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('-: the code is over the limit of 4194304 bytes per run');
  });

  it('another user cannot attach a file they cannot read: their own command refuses it', async () => {
    const theirData = join(base, 'nobody-data');
    mkdirSync(theirData, { mode: 0o700 });
    chownSync(theirData, NOBODY, NOBODY);
    const run = await runCli(['chat', '--thread', 't', '--attach', secret, 'what is in it?'], {
      env: { ...cliEnv(theirData), HOME: theirData },
      uid: NOBODY,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--attach: cannot read ${secret} (EACCES).`);
    expect(run.stdout).not.toContain('secret-hash');
    expect(existsSync(join(theirData, 'cli.sock'))).toBe(false);
  });

  it('refuses a data directory that belongs to someone else, saying what to do', async () => {
    const foreign = join(base, 'foreign');
    mkdirSync(foreign, { mode: 0o700 });
    chownSync(foreign, NOBODY, NOBODY);
    const run = await runCli(['exec', '-'], { env: cliEnv(foreign), stdin: 'print(1)' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`Unsafe THREADLAB_DATA_DIR: ${foreign} belongs to user ${NOBODY}, not to you (0)`);
    expect(run.stderr).toContain('Set THREADLAB_DATA_DIR to a directory of your own.');
    expect(existsSync(join(foreign, 'cli.sock'))).toBe(false);
  });
});
