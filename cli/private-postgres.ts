import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { SEED_SQL, type SeedOptions } from './private-postgres-seed.js';

const run = promisify(execFile);

/** A role of the private server: its name and password (random per server). */
export interface PostgresRole {
  user: string;
  password: string;
}

/**
 * A private PostgreSQL on a free loopback port, seeded (`sales`, `regions`, `notes`), for the sources tests
 * and `threadlab bench sources`. `reader` may only read; `writer` may write (a misconfigured source);
 * `admin` is the superuser, reached over the unix socket only (to watch pg_stat_activity and check tables).
 */
export interface PrivatePostgres {
  host: '127.0.0.1';
  port: number;
  database: string;
  /** The directory of the server's unix socket (the admin's way in). */
  socketDir: string;
  reader: PostgresRole;
  writer: PostgresRole;
  admin: { user: 'postgres' };
  /** `postgres://user@127.0.0.1:port/db`: never with the password. */
  urlFor(role: PostgresRole): string;
  /** Runs `sql` as the superuser through psql over the socket; its stdout (unaligned, tuples only). */
  psql(sql: string, options?: { role?: PostgresRole }): Promise<string>;
  binDir: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface StartPostgresOptions extends SeedOptions {
  port?: number;
  /** How long to wait for the server to accept connections. @defaultValue 20000 */
  startTimeoutMs?: number;
}

/** Debian's server binaries: /usr/lib/postgresql/<major>/bin, the newest major (initdb and postgres are not on PATH). */
export function postgresBinDir(root = '/usr/lib/postgresql'): string {
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((d) => /^\d+$/.test(d) && existsSync(join(root, d, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0)
    throw new Error(
      'PostgreSQL server binaries not found under /usr/lib/postgresql; install them: apt-get install postgresql',
    );
  return join(root, majors[0]!, 'bin');
}

/** PostgreSQL refuses to run as root: as root, initdb and the server run as the `postgres` OS user. */
async function osUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('no postgres OS user to run PostgreSQL as');
  return { uid, gid };
}

const password = () => randomBytes(18).toString('base64url');

/**
 * initdb into a temp dir (no fsync, scram passwords over TCP, trust on the socket), starts the server on
 * 127.0.0.1:`port` with fsync off, seeds it and returns when it answers. Everything goes on `stop()`.
 */
export async function startPrivatePostgres(options: StartPostgresOptions = {}): Promise<PrivatePostgres> {
  const binDir = postgresBinDir();
  const as = await osUser();
  const dir = mkdtempSync(join(tmpdir(), 'threadlab-pg-'));
  const data = join(dir, 'data');
  if (as) chownSync(dir, as.uid, as.gid);
  const ids = as ? { uid: as.uid, gid: as.gid } : {};
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  let child: ChildProcess | undefined;
  try {
    const pwfile = join(dir, 'pw');
    writeFileSync(pwfile, password(), { mode: 0o600 });
    if (as) chownSync(pwfile, as.uid, as.gid);
    await run(
      join(binDir, 'initdb'),
      [
        '-D',
        data,
        '-U',
        'postgres',
        '--pwfile',
        pwfile,
        '-A',
        'scram-sha-256',
        '--auth-local=trust',
        '-N',
        '-E',
        'UTF8',
      ],
      { ...ids, env: { ...process.env, LC_ALL: 'C' } },
    );
    rmSync(pwfile);
    const port = options.port ?? (await freePort());
    child = spawn(
      join(binDir, 'postgres'),
      ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1']
        .concat(['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'])
        .concat(['-c', 'max_connections=60', '-c', 'shared_buffers=64MB']),
      { ...ids, stdio: 'ignore' },
    );
    const server = child;
    // SQL goes in a file (the seed holds passwords, which an error's command line would show).
    const psql = async (sql: string, o: { role?: PostgresRole } = {}) => {
      const file = join(dir, `q-${randomBytes(6).toString('hex')}.sql`);
      writeFileSync(file, sql, { mode: 0o600 });
      try {
        return (
          await run(
            join(binDir, 'psql'),
            ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', dir, '-p', String(port), '-d', 'postgres'].concat([
              '-U',
              o.role?.user ?? 'postgres',
              '-f',
              file,
            ]),
            { env: { ...process.env, PGPASSWORD: o.role?.password ?? '' }, maxBuffer: 64 * 1024 * 1024 },
          )
        ).stdout;
      } finally {
        rmSync(file, { force: true });
      }
    };
    await waitReady(() => psql('SELECT 1'), server, options.startTimeoutMs ?? 20_000);
    const reader = { user: 'tl_reader', password: password() };
    const writer = { user: 'tl_writer', password: password() };
    await psql(SEED_SQL({ reader, writer, ...(options.salesRows ? { salesRows: options.salesRows } : {}) }));
    return {
      host: '127.0.0.1',
      port,
      database: 'postgres',
      socketDir: dir,
      reader,
      writer,
      admin: { user: 'postgres' },
      urlFor: (role) => `postgres://${role.user}@127.0.0.1:${port}/postgres`,
      psql,
      binDir,
      process: server,
      stop: () => stopServer(server).finally(cleanup),
    };
  } catch (err) {
    if (child) await stopServer(child);
    cleanup();
    throw err;
  }
}

async function waitReady(ping: () => Promise<unknown>, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited with code ${child.exitCode} while starting`);
    try {
      await ping();
      return;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections within ${timeoutMs} ms`, { cause: err });
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Immediate shutdown (SIGQUIT: no checkpoint; the data dir is removed next anyway); SIGKILL after 10 s. */
function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGQUIT');
  });
}
