/**
 * Issue 26, item 6: `threadlab purge --thread` reaches a running process's memory, and the audit trail
 * keeps no output file name of the purged thread. Without REDIS_URL a thread's memory and export log live
 * in the process that answered it (here the CLI's daemon, as in `threadlab start`): after the purge its
 * `/export` must not return the thread's runs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeOpenAiServer, fakeSay } from '../../fakes/fake-openai-server.js';
import { cliEnv, runCli } from './cli-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-purge-running-'));
const llm = new FakeOpenAiServer({ fallback: fakeSay('(no more scripted replies)') });
let env: Record<string, string | undefined>;
const cli = (args: string[]) => runCli(args, { env, cwd: dataDir });
const SECRET_FILE = 'q3-layoffs-draft.csv';
const KEY = 'cli:local:cli:secret';

beforeAll(async () => {
  await llm.start();
  env = cliEnv(dataDir, { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'sk-test-purge-running' });
});

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env: cliEnv(dataDir) });
  await llm.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const auditLines = (): Record<string, unknown>[] =>
  readFileSync(join(dataDir, 'audit.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

it("after threadlab purge --thread, the running daemon's /export has no run of it and the audit trail no file name", async () => {
  const code = `open("${SECRET_FILE}", "w").write("a,b\\n1,2\\n")\nprint("written")`;
  const ran = await cli(['chat', '--thread', 'secret', '--json', `\`\`\`python\n${code}\n\`\`\``]);
  expect(ran.code, ran.stderr).toBe(0);
  expect(JSON.parse(ran.stdout).runs[0].status).toBe('ok');
  const other = await cli(['chat', '--thread', 'other', '--json', '```python\nprint("kept")\n```']);
  expect(other.code, other.stderr).toBe(0);
  expect(readFileSync(join(dataDir, 'audit.jsonl'), 'utf8')).toContain(SECRET_FILE);

  const purged = await runCli(['purge', '--thread', KEY], { env: cliEnv(dataDir) });
  expect(purged.code, purged.stdout + purged.stderr).toBe(0);

  const out = join(dataDir, 'export-after');
  const exported = await cli(['chat', '--thread', 'secret', '--out', out, '--json', '/export']);
  expect(exported.code, exported.stderr).toBe(0);
  const reply = JSON.parse(exported.stdout);
  expect(reply.text).toContain('Nothing to export yet');
  expect(reply.files).toEqual([]);

  // The other thread is untouched, in memory and in the trail.
  const kept = await cli(['chat', '--thread', 'other', '--out', join(dataDir, 'export-other'), '--json', '/export']);
  expect(JSON.parse(kept.stdout).files).toHaveLength(2);

  const trail = readFileSync(join(dataDir, 'audit.jsonl'), 'utf8');
  expect(trail).not.toContain(SECRET_FILE);
  const runOfPurged = auditLines().find((l) => l.kind === 'run' && l.thread === KEY);
  expect(runOfPurged).toMatchObject({ pseudonym: true });
  expect((runOfPurged!.filesOut as { name: string }[])[0]!.name).toMatch(/^erased-[0-9a-f]{16}$/);
  expect(purged.stdout).toMatch(/Audit trail.*: 1 line\(s\) of the purged threads now name their files by pseudonyms/);
}, 180_000);
