import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisConversationStore } from '../../../adapters/redis/redis-conversation-store.js';
import { LABELS } from '../../../sandbox/container-spec.js';
import { formatAuditLine, threadHash } from '../../../src/governance/audit/audit-record.js';
import { createParticipantIndex } from '../../../src/governance/retention/retention-index.js';
import { createLogger } from '../../../src/logger.js';
import { egressRecord } from '../../support/audit-fixture.js';
import { listTree, seedThread, webKey } from '../../support/retention-fixture.js';
import { cliEnv, runCli } from './cli-process.js';

const docker = new Docker();
const redisUrl = process.env.THREADLAB_TEST_REDIS_URL!;
const store = new RedisConversationStore({ redisUrl, logger: createLogger({ level: 'silent' }) });
const run = randomUUID().slice(0, 8);
const [a, b] = [webKey(`a-${run}`), webKey(`b-${run}`)];
const containers: string[] = [];
let dataDir: string;

/** A (never started) container labelled as a thread's sandbox, as the bot's are. */
async function sandboxContainer(key: string): Promise<string> {
  const c = await docker.createContainer({
    Image: process.env.THREADLAB_TEST_SANDBOX_IMAGE!,
    Cmd: ['true'],
    // Owned by this live process on this host, as a bot's container is: another bot's start-up sweep of
    // orphans (a test running beside this one) leaves it alone.
    Labels: {
      [LABELS.sandbox]: '1',
      [LABELS.instance]: `purge-test-${run}`,
      [LABELS.session]: threadHash(key),
      [LABELS.host]: hostname(),
      [LABELS.pid]: String(process.pid),
    },
  });
  containers.push(c.id);
  return c.id;
}

const exists = (id: string) =>
  docker
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'threadlab-purge-cli-'));
});
afterAll(async () => {
  for (const id of containers)
    await docker
      .getContainer(id)
      .remove({ force: true })
      .catch(() => undefined);
  await store.delete(a);
  await store.delete(b);
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it("threadlab purge --thread removes the thread's files, state, container, memory and web history, and nothing of another", async () => {
  for (const [key, id] of [
    [a, `a-${run}`],
    [b, `b-${run}`],
  ] as const) {
    seedThread(dataDir, key, { webId: id });
    const at = Date.now();
    await store.put(
      key,
      { history: [{ role: 'user', text: 'q', atMs: at }], createdAtMs: at, updatedAtMs: at, trimmedEntries: 0 },
      60_000,
    );
  }
  const index = createParticipantIndex(dataDir);
  await index.record(a, 'U1');
  await index.record(b, 'U2');
  const [ca, cb] = [await sandboxContainer(a), await sandboxContainer(b)];
  const before = listTree(dataDir);

  const result = await runCli(['purge', '--thread', a], { env: cliEnv(dataDir, { REDIS_URL: redisUrl }) });

  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Removed (1 thread(s)):');
  for (const what of ['container', 'files', 'state', 'memory', 'web history', 'index'])
    expect(result.stdout).toMatch(new RegExp(`^  ${what}\\s+${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
  expect(result.stdout).toContain('(1 file(s), 5 bytes)');
  expect(result.stdout).toContain('(2 file(s), 9 bytes)');
  expect(result.stdout).toContain('2 messages, 1 files');
  expect(await exists(ca)).toBe(false);
  expect(await exists(cb)).toBe(true);
  expect(await store.get(a)).toBeUndefined();
  expect(await store.get(b)).toBeDefined();
  const gone = before.filter((p) => p.includes(threadHash(a)) || p.includes(`a-${run}`));
  expect(listTree(dataDir)).toEqual(before.filter((p) => !gone.includes(p)));
});

it('threadlab purge --user pseudonymises the user in the audit trail and --json reports it', async () => {
  const key = `slack:T1:C1:${run}.1`;
  seedThread(dataDir, key);
  await createParticipantIndex(dataDir).record(key, 'U9');
  const audit = join(dataDir, 'audit.log');
  const record = {
    v: 1,
    ts: new Date().toISOString(),
    user: 'U9',
    kind: 'run',
    thread: key,
    threadHash: threadHash(key),
  };
  writeFileSync(audit, `${JSON.stringify(record)}\n${JSON.stringify({ ...record, user: 'U2' })}\n`);

  const result = await runCli(['purge', '--user', 'U9', '--audit-log', audit, '--json'], {
    env: cliEnv(dataDir, { REDIS_URL: redisUrl }),
  });

  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout);
  expect(report.removed.map((i: { what: string }) => i.what).sort()).toEqual(['files', 'index', 'state']);
  expect(report.audit.pseudonymised).toBe(1);
  expect(existsSync(join(dataDir, 'sandbox-files', threadHash(key)))).toBe(false);
  const lines = readFileSync(audit, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines).toEqual([
    { ...record, user: report.audit.pseudonym, pseudonym: true },
    { ...record, user: 'U2' },
  ]);
});

it('threadlab purge --user pseudonymises the configured audit file and its rotated files without --audit-log; none skips', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'threadlab-purge-audit-'));
  try {
    const audit = join(dir, 'audit.jsonl');
    const line = (user: string) => formatAuditLine(egressRecord(user, Date.now()));
    writeFileSync(`${audit}.2`, line('U7') + line('U2'));
    writeFileSync(`${audit}.1`, line('U7'));
    writeFileSync(audit, line('U2') + line('U7'));
    const users = (file: string) =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { user: string }).user);

    const skipped = await runCli(['purge', '--user', 'U7', '--audit-log', 'none'], { env: cliEnv(dir) });
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toContain('--audit-log none: audit lines were not pseudonymised.');
    expect(users(audit)).toEqual(['U2', 'U7']);

    const result = await runCli(['purge', '--user', 'U7'], { env: cliEnv(dir) });
    expect(result.code).toBe(0);
    const pseudonym = /as (erased-[0-9a-f]{16})\./.exec(result.stdout)?.[1];
    expect(result.stdout).toContain(`Audit trail in ${audit}.2, ${audit}.1, ${audit}: 3 line(s) now name the user as`);
    expect([users(`${audit}.2`), users(`${audit}.1`), users(audit)]).toEqual([
      [pseudonym, 'U2'],
      [pseudonym],
      ['U2', pseudonym],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('threadlab purge --older-than leaves a thread whose sandbox container is live, and removes an idle one', async () => {
  const [idle, busy] = [webKey(`idle-${run}`), webKey(`busy-${run}`)];
  seedThread(dataDir, idle, { ageMs: 3 * 86_400_000 });
  seedThread(dataDir, busy, { ageMs: 3 * 86_400_000 });
  await sandboxContainer(busy);

  const result = await runCli(['purge', '--older-than', '1d', '--json'], { env: cliEnv(dataDir) });

  expect(result.code).toBe(0);
  expect(existsSync(join(dataDir, 'sandbox-files', threadHash(idle)))).toBe(false);
  expect(existsSync(join(dataDir, 'sandbox-files', threadHash(busy), 'data.csv'))).toBe(true);
});

it('threadlab purge refuses bad usage with exit 2 and says how', async () => {
  const env = cliEnv(dataDir);
  const none = await runCli(['purge'], { env });
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('exactly one of --thread KEY, --user ID or --older-than DURATION');
  const badKey = await runCli(['purge', '--thread', 'nope'], { env });
  expect(badKey.code).toBe(2);
  expect(badKey.stderr).toContain('is not a thread key');
  const badAge = await runCli(['purge', '--older-than', '30'], { env });
  expect(badAge.code).toBe(2);
  expect(badAge.stderr).toContain('expected a number and a unit');
});

it('without REDIS_URL the report says where the memory is and that it was not reached', async () => {
  const result = await runCli(['purge', '--older-than', '1w'], { env: cliEnv(dataDir) });
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Conversation memory is not in Redis');
});

it('threadlab purge --user: a bad --audit-log is refused before anything is removed; an unreadable trail is reported with the rest', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'threadlab-purge-badaudit-'));
  try {
    const key = `slack:T1:C1:${run}.9`;
    seedThread(dir, key);
    await createParticipantIndex(dir).record(key, 'U5');
    const files = join(dir, 'sandbox-files', threadHash(key));
    for (const bad of ['', ' ', dir]) {
      const refused = await runCli(['purge', '--user', 'U5', '--audit-log', bad], { env: cliEnv(dir) });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--audit-log: (expected the audit file's path, or none|.* is not a file)\./);
      expect(existsSync(files)).toBe(true);
    }
    // The configured trail is a directory: the thread still goes, and the report says the trail failed.
    const result = await runCli(['purge', '--user', 'U5', '--json'], {
      env: cliEnv(dir, { THREADLAB_AUDIT_LOG: dir }),
    });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.removed.map((i: { what: string }) => i.what)).toContain('files');
    expect(report.failures).toEqual([{ source: 'audit trail', error: expect.stringContaining(dir) }]);
    expect(existsSync(files)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
