import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LABELS } from '../../../sandbox/container-spec.js';
import { formatAuditLine, threadHash } from '../../../src/governance/audit/audit-record.js';
import { egressRecord } from '../../support/audit-fixture.js';
import { freePort } from '../../support/redis-server.js';
import { seedThread, webKey } from '../../support/retention-fixture.js';
import { spawnThreadlab, type ThreadlabProcess } from '../../e2e/roles/processes.js';

const DAY_MS = 86_400_000;
const docker = new Docker();
const run = randomUUID().slice(0, 8);
const [old, fresh, live] = [`old-${run}`, `fresh-${run}`, `live-${run}`];
let dataDir: string;
let containerId: string | undefined;
let bot: ThreadlabProcess | undefined;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'threadlab-retention-start-'));
});
afterAll(async () => {
  if (bot?.isRunning()) {
    bot.child.kill('SIGTERM');
    await bot.exited;
  }
  if (containerId)
    await docker
      .getContainer(containerId)
      .remove({ force: true })
      .catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

it('threadlab start sweeps at start: aged state, web history and audit lines go, fresh and live threads stay, one log line says so', async () => {
  seedThread(dataDir, webKey(old), { webId: old, ageMs: 3 * DAY_MS });
  seedThread(dataDir, webKey(fresh), { webId: fresh });
  seedThread(dataDir, webKey(live), { webId: live, ageMs: 3 * DAY_MS });
  // A session of a peer bot process (alive: this test runner) holds the live thread's container.
  const container = await docker.createContainer({
    Image: process.env.THREADLAB_TEST_SANDBOX_IMAGE!,
    Cmd: ['true'],
    Labels: {
      [LABELS.sandbox]: '1',
      [LABELS.instance]: `retention-test-${run}`,
      [LABELS.session]: threadHash(webKey(live)),
      [LABELS.host]: hostname(),
      [LABELS.pid]: String(process.pid),
    },
  });
  containerId = container.id;
  const audit = join(dataDir, 'audit.jsonl');
  const now = Date.now();
  writeFileSync(`${audit}.1`, formatAuditLine(egressRecord('U-rotated', now - 5 * DAY_MS)), { mode: 0o600 });
  utimesSync(`${audit}.1`, (now - 5 * DAY_MS) / 1000, (now - 5 * DAY_MS) / 1000);
  writeFileSync(
    audit,
    formatAuditLine(egressRecord('U-old', now - 2 * DAY_MS)) + formatAuditLine(egressRecord('U-new', now)),
    {
      mode: 0o600,
    },
  );

  bot = spawnThreadlab({
    name: 'retention',
    role: 'all',
    metricsPort: await freePort(),
    env: {
      THREADLAB_DATA_DIR: dataDir,
      THREADLAB_SANDBOX_IMAGE: process.env.THREADLAB_TEST_SANDBOX_IMAGE!,
      THREADLAB_SANDBOX_POOL_SIZE: '0',
      THREADLAB_WEB_PORT: '0',
      THREADLAB_LOG_LEVEL: 'info',
      THREADLAB_RETENTION_STATE: '1d',
      THREADLAB_RETENTION_WEB_HISTORY: '1d',
      THREADLAB_RETENTION_AUDIT: '1d',
    },
  });
  await bot.ready();
  await expect.poll(() => bot!.output(), { timeout: 30_000 }).toContain('"msg":"retention sweep"');
  const line = JSON.parse(
    bot
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"retention sweep"'))!,
  ) as object;
  expect(line).toMatchObject({ removed: { state: 1, 'web history': 1 }, auditLines: 1, auditFiles: 1, more: [] });

  const state = (id: string) => join(dataDir, 'sandbox-files', threadHash(webKey(id)), '.threadlab', 'state');
  expect(existsSync(state(old))).toBe(false);
  expect(existsSync(join(dataDir, 'web', 'threads', old))).toBe(false);
  expect(existsSync(join(dataDir, 'sandbox-files', threadHash(webKey(old)), 'data.csv'))).toBe(true);
  for (const id of [fresh, live]) {
    expect(existsSync(join(state(id), 'state.dill'))).toBe(true);
    expect(existsSync(join(dataDir, 'web', 'threads', id, 'messages.jsonl'))).toBe(true);
  }
  expect(existsSync(`${audit}.1`)).toBe(false);
  expect(readFileSync(audit, 'utf8')).not.toContain('U-old');
  expect(readFileSync(audit, 'utf8')).toContain('U-new');
  expect(statSync(audit).mode & 0o777).toBe(0o600);
});
