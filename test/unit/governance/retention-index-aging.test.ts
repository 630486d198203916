import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { threadHash } from '../../../src/governance/audit/audit-record.js';
import { createParticipantIndex } from '../../../src/governance/retention/retention-index.js';
import { indexKind } from '../../../src/governance/retention/retention-sweeper.js';
import { webSurfaceHistories } from '../../../adapters/web/web-retention.js';
import { createRetentionSweeper } from '../../../app/index.js';
import { recordingLogger } from '../../support/recording-logger.js';

const DAY_MS = 86_400_000;
let dataDir: string;
beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'threadlab-index-aging-'))));
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const slackEnv = () => ({
  SLACK_BOT_TOKEN: 'xoxb-1234567890-abcdef',
  SLACK_APP_TOKEN: 'xapp-1-A0-1234567890-abcdef',
  THREADLAB_WEB_ENABLED: 'false',
  THREADLAB_DATA_DIR: dataDir,
});
const entryOf = (key: string) => join(dataDir, 'retention', 'threads', `${threadHash(key)}.json`);

/** Writes who-wrote entries whose last message was `ageMs` ago. */
async function seed(entries: [key: string, user: string, ageMs: number][]): Promise<void> {
  const index = createParticipantIndex(dataDir);
  for (const [key, user, ageMs] of entries) await index.record(key, user, Date.now() - ageMs);
}

it("the gateway's sweep drops who-wrote entries once their thread's data has expired, and keeps the rest", async () => {
  const expired = 'slack:T1:C1:1.1';
  const recent = 'slack:T1:C1:2.2';
  await seed([
    [expired, 'U-ADA', 8 * DAY_MS],
    [recent, 'U-BOB', 2 * DAY_MS],
  ]);
  const { lines, logger } = recordingLogger();
  // The gateway needs no Docker: its sweep must work with none configured.
  const config = loadConfig({ ...slackEnv(), DOCKER_HOST: 'unix:///nonexistent/threadlab.sock' });
  const sweeper = createRetentionSweeper({ config, logger, role: 'gateway' })!;

  const summary = await sweeper.sweep();

  expect(summary).toMatchObject({ removed: { 'who wrote': 1 }, failures: [] });
  expect(existsSync(entryOf(expired))).toBe(false);
  expect(existsSync(entryOf(recent))).toBe(true);
  expect(lines.find((l) => l.msg === 'retention sweep')).toMatchObject({ removed: { 'who wrote': 1 } });
  // A worker writes no index: it has nothing of it to sweep.
  expect(createRetentionSweeper({ config, logger, role: 'worker' })).toBeUndefined();
});

it('the index follows the longest-kept data: the files TTL when longer than the memory, web threads while their history stays', async () => {
  const slack = 'slack:T1:C1:3.3';
  const web = 'web:local:web:0d4f2c1e';
  await seed([
    [slack, 'U-ADA', 9 * DAY_MS],
    [web, 'local', 30 * DAY_MS],
  ]);
  const longFiles = loadConfig({ ...slackEnv(), THREADLAB_FILES_TTL_MS: String(10 * DAY_MS) });
  const kind = indexKind(longFiles);
  expect(kind.maxAgeMs).toBe(10 * DAY_MS);
  // Slack's entry is younger than the files it may still find; without the web chat, a web entry just ages.
  expect((await kind.source.purgeIdle(Date.now() - kind.maxAgeMs)).map((r) => r.thread)).toEqual([web]);
  await seed([[web, 'local', 30 * DAY_MS]]);

  const withWeb = loadConfig({ ...slackEnv(), THREADLAB_WEB_ENABLED: 'true' });
  const webKind = indexKind(withWeb, webSurfaceHistories(withWeb));
  expect(webKind.maxAgeMs).toBe(7 * DAY_MS);
  const removed = await webKind.source.purgeIdle(Date.now() - webKind.maxAgeMs);
  expect(removed.map((r) => r.thread)).toEqual([slack]); // the web history is kept (unset), so its entry stays
  expect(existsSync(entryOf(web))).toBe(true);

  const webAged = loadConfig({ ...slackEnv(), THREADLAB_WEB_ENABLED: 'true', THREADLAB_RETENTION_WEB_HISTORY: '3d' });
  const agedKind = indexKind(webAged, webSurfaceHistories(webAged));
  expect((await agedKind.source.purgeIdle(Date.now() - agedKind.maxAgeMs)).map((r) => r.thread)).toEqual([web]);
});

it('an idle purge of the index keeps live threads and stops at its bound', async () => {
  const keys = ['slack:T1:C1:4.1', 'slack:T1:C1:4.2', 'slack:T1:C1:4.3', 'slack:T1:C1:4.4'];
  await seed(keys.map((k) => [k, 'U-ADA', 30 * DAY_MS] as [string, string, number]));
  const index = createParticipantIndex(dataDir);
  const live = threadHash(keys[0]!);
  const first = await index.purgeIdle(Date.now() - DAY_MS, { keep: (hash) => hash === live, maxThreads: 2 });
  expect(first).toHaveLength(2);
  expect(first.map((r) => r.thread)).not.toContain(keys[0]);
  const second = await index.purgeIdle(Date.now() - DAY_MS, { keep: (hash) => hash === live, maxThreads: 2 });
  expect(second).toHaveLength(1);
  expect(keys.filter((k) => existsSync(entryOf(k)))).toEqual([keys[0]]);
});
