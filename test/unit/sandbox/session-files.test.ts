import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Artifact, ExecutionResult } from '../../../src/domain/execution.js';
import { FileMirror } from '../../../sandbox/file-mirror.js';
import type { LiveContainer } from '../../../sandbox/live-container.js';
import type { RunOutcome } from '../../../sandbox/run-execution.js';
import {
  MAX_RUN_ARTIFACTS,
  MAX_RUN_PACKAGE_FILES,
  MAX_RUN_DELETIONS,
  MAX_SKIPPED_LISTED,
  listSessionFiles,
  putSessionFile,
  readSessionFile,
  syncRunFiles,
} from '../../../sandbox/session-files.js';
import { FakeRunner } from './fake-runner.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A runner that streams files from `files` as the supervisor does (`stream_file`: nothing of a file over the
 * request's maxBytes, only its size), while its run results claim `claimed` sizes (lies included).
 */
function lyingRunner(files: Record<string, Buffer>, claimed: (path: string) => number = (p) => files[p]!.length) {
  const runner = new FakeRunner();
  let reads = 0;
  runner.onRequest = (req) => {
    if (req.op !== 'stream_file') return;
    reads += 1;
    const data = files[String(req.path)]!;
    if (data.length <= Number(req.maxBytes)) {
      for (let at = 0; at < data.length; at += 256) runner.sendChunk(req.id, data.subarray(at, at + 256));
    }
    runner.sendFile(req.id, Buffer.alloc(0), { size: data.length, eof: true });
  };
  return { connection: runner.connect(), reads: () => reads, claimed };
}

function outcome(artifacts: Artifact[], extra: Partial<ExecutionResult> = {}, skippedMore = 0): RunOutcome {
  const result: ExecutionResult = {
    status: 'ok',
    stdout: '',
    stderr: '',
    displays: [],
    artifacts,
    durationMs: 1,
    executionCount: 1,
    ...extra,
  };
  return { result, deleted: [], lost: false, skippedMore };
}

function artifact(path: string, bytes: number): Artifact {
  return { path, bytes, mime: 'application/octet-stream', change: 'created' };
}

function mirror(): FileMirror {
  const dir = mkdtempSync(join(tmpdir(), 'threadlab-mirror-'));
  dirs.push(dir);
  return new FileMirror(dir);
}

const logger = pino({ level: 'silent' });

describe('syncRunFiles', () => {
  it('stops a file that sends more than it claimed at the limit, and keeps no partial copy', async () => {
    const files = { 'liar.bin': Buffer.alloc(5000, 1), 'ok.txt': Buffer.from('fine') };
    const { connection } = lyingRunner(files, () => 1);
    const m = mirror();
    const run = outcome([artifact('liar.bin', 1), artifact('ok.txt', 4)]);
    await syncRunFiles({
      connection,
      mirror: m,
      outcome: run,
      maxFileBytes: 1000,
      maxRunFilesBytes: 10_000,
      maxMirrorBytes: 1e9,
      logger,
    });
    expect(run.result.artifacts.map((a) => a.path)).toEqual(['ok.txt']);
    expect(run.result.skippedArtifacts).toEqual([
      expect.objectContaining({ path: 'liar.bin', reason: expect.stringContaining('grew past the size') }),
    ]);
    expect((await readdir(m.root)).sort()).toEqual(['ok.txt']);
  });

  it('brings back at most the total per run, counting the bytes received, and says why the rest stayed', async () => {
    const files = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}.bin`, Buffer.alloc(300, i)]));
    const { connection } = lyingRunner(files);
    const m = mirror();
    const run = outcome(Object.keys(files).map((p) => artifact(p, 300)));
    await syncRunFiles({
      connection,
      mirror: m,
      outcome: run,
      maxFileBytes: 1000,
      maxRunFilesBytes: 1000,
      maxMirrorBytes: 1e9,
      logger,
    });
    expect(run.result.artifacts.map((a) => a.path)).toEqual(['f0.bin', 'f1.bin', 'f2.bin']);
    expect(run.result.skippedArtifacts).toHaveLength(7);
    expect(run.result.skippedArtifacts?.[0]).toMatchObject({ path: 'f3.bin', bytes: 300 });
    expect(run.result.skippedArtifacts?.[0]?.reason).toMatch(/total per run of .* reached/);
    expect((await m.list()).reduce((n, f) => n + f.bytes, 0)).toBe(900);
  });

  it('counts a file that under-reports its size against the total by what it sent', async () => {
    const files = { 'a.bin': Buffer.alloc(700), 'b.bin': Buffer.alloc(700) };
    const { connection } = lyingRunner(files, () => 0);
    const run = outcome([artifact('a.bin', 0), artifact('b.bin', 0)]);
    await syncRunFiles({
      connection,
      mirror: mirror(),
      outcome: run,
      maxFileBytes: 1000,
      maxRunFilesBytes: 1000,
      maxMirrorBytes: 1e9,
      logger,
    });
    expect(run.result.artifacts).toEqual([expect.objectContaining({ path: 'a.bin', bytes: 700 })]);
    expect(run.result.skippedArtifacts?.map((s) => s.path)).toEqual(['b.bin']);
  });

  it("keeps the session's host copy within its total across runs, and drops a stale copy of a file not brought back", async () => {
    const m = mirror();
    await m.write('old.bin', Buffer.alloc(600));
    await m.write('kept.bin', Buffer.alloc(300));
    const files = { 'new.bin': Buffer.alloc(500), 'old.bin': Buffer.alloc(800) };
    const { connection } = lyingRunner(files);
    const run = outcome([artifact('new.bin', 500), { ...artifact('old.bin', 800), change: 'modified' }]);
    const limits = { maxFileBytes: 1000, maxRunFilesBytes: 10_000, maxMirrorBytes: 1000 };
    await syncRunFiles({ connection, mirror: m, outcome: run, ...limits, logger });
    // kept.bin (300) + new.bin (500) leave 200 bytes: old.bin's new 800 bytes do not fit.
    expect(run.result.artifacts.map((a) => a.path)).toEqual(['new.bin']);
    expect(run.result.skippedArtifacts?.[0]).toMatchObject({ path: 'old.bin' });
    expect(run.result.skippedArtifacts?.[0]?.reason).toContain('THREADLAB_SANDBOX_DATA_MB');
    expect((await m.list()).map((f) => f.path)).toEqual(['kept.bin', 'new.bin']);
  });

  it('applies at most MAX_RUN_DELETIONS deletions, however many the runner lists', async () => {
    const m = mirror();
    await m.write('first.txt', Buffer.from('1'));
    await m.write('beyond.txt', Buffer.from('2'));
    const deleted = [
      'first.txt',
      ...Array.from({ length: MAX_RUN_DELETIONS - 1 }, (_, i) => `gone-${i}`),
      'beyond.txt',
    ];
    const run = { ...outcome([]), deleted };
    const { connection } = lyingRunner({});
    await syncRunFiles({
      connection,
      mirror: m,
      outcome: run,
      maxFileBytes: 10,
      maxRunFilesBytes: 10,
      maxMirrorBytes: 10,
      logger,
    });
    expect((await m.list()).map((f) => f.path)).toEqual(['beyond.txt']);
  });

  it('caps the files brought back and the list of those skipped, whatever the runner lists', async () => {
    const count = MAX_RUN_ARTIFACTS + 60;
    const files = Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, Buffer.from('x')]));
    const { connection, reads } = lyingRunner(files);
    const run = outcome(
      Object.keys(files).map((p) => artifact(p, 1)),
      { skippedArtifacts: [{ path: 'x'.repeat(10_000), reason: 'r'.repeat(10_000) }] },
      1000,
    );
    await syncRunFiles({
      connection,
      mirror: mirror(),
      outcome: run,
      maxFileBytes: 10,
      maxRunFilesBytes: 1e6,
      maxMirrorBytes: 1e9,
      logger,
    });
    expect(run.result.artifacts).toHaveLength(MAX_RUN_ARTIFACTS);
    expect(reads()).toBe(MAX_RUN_ARTIFACTS);
    const skipped = run.result.skippedArtifacts ?? [];
    expect(skipped).toHaveLength(MAX_SKIPPED_LISTED + 1);
    expect(skipped[0]!.path.length).toBeLessThanOrEqual(300);
    expect(skipped[0]!.reason.length).toBeLessThanOrEqual(300);
    expect(skipped.at(-1)!.path).toBe(`${1 + 60 - MAX_SKIPPED_LISTED + 1000} more files`);
  });

  it('brings back an installed package whole: its files count against a cap of their own, not the 200 of a run', async () => {
    const packageFiles = Array.from(
      { length: MAX_RUN_ARTIFACTS + 100 },
      (_, i) => `.local/lib/python3.13/site-packages/pkg/m${i}.py`,
    );
    const userFiles = Array.from({ length: MAX_RUN_ARTIFACTS + 5 }, (_, i) => `out${i}.csv`);
    const all = [...packageFiles, ...userFiles];
    const { connection } = lyingRunner(Object.fromEntries(all.map((p) => [p, Buffer.from('x')])));
    const run = outcome(all.map((p) => artifact(p, 1)));
    const m = mirror();
    await syncRunFiles({
      connection,
      mirror: m,
      outcome: run,
      maxFileBytes: 10,
      maxRunFilesBytes: 1e6,
      maxMirrorBytes: 1e9,
      logger,
    });
    const kept = run.result.artifacts.map((a) => a.path);
    expect(kept.filter((p) => p.startsWith('.local/'))).toHaveLength(packageFiles.length);
    expect(kept.filter((p) => !p.startsWith('.local/'))).toHaveLength(MAX_RUN_ARTIFACTS);
    expect(run.result.skippedArtifacts?.map((s) => s.path)).toEqual(userFiles.slice(MAX_RUN_ARTIFACTS));
    expect(MAX_RUN_PACKAGE_FILES).toBeGreaterThan(MAX_RUN_ARTIFACTS);
  });
});

/** A runner that answers each `put_file` awaiting an answer with `answer` (an ok frame naming the file, or an error). */
function puttingRunner(answer: (req: Record<string, unknown>) => Record<string, unknown>) {
  const runner = new FakeRunner();
  runner.onRequest = (req) => {
    if (req.op === 'put_file' && !req.more) runner.send({ id: req.id, ...answer(req) });
  };
  return runner;
}

async function* chunksOf(...parts: Buffer[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield part;
}

describe('putSessionFile', () => {
  const okFile = (req: Record<string, unknown>) => ({
    type: 'ok',
    file: { path: String(req.path), bytes: 6, mime: 'text/plain', modifiedMs: 1 },
  });

  it('writes the host copy, then the container, and says what the container holds', async () => {
    const runner = puttingRunner(okFile);
    const m = mirror();
    const file = await putSessionFile({
      connection: runner.connect(),
      mirror: m,
      path: 'a.txt',
      data: chunksOf(Buffer.from('abc'), Buffer.from('def')),
      maxBytes: 100,
    });
    expect(file).toMatchObject({ path: 'a.txt', bytes: 6 });
    expect((await m.read('a.txt')).toString()).toBe('abcdef');
    const payload = Buffer.concat(runner.requests.map((r) => r.payload as Buffer));
    expect(payload.toString()).toBe('abcdef');
  });

  it('refuses a stream that runs past maxBytes, leaving no copy anywhere', async () => {
    const runner = puttingRunner(okFile);
    const m = mirror();
    const put = putSessionFile({
      connection: runner.connect(),
      mirror: m,
      path: 'big.bin',
      data: chunksOf(Buffer.alloc(60), Buffer.alloc(60)),
      maxBytes: 100,
    });
    await expect(put).rejects.toMatchObject({ code: 'sandbox_file_rejected', isPolicy: true });
    await expect(put).rejects.toThrow(/THREADLAB_MAX_FILE_MB/);
    expect(await m.has('big.bin')).toBe(false);
    expect(runner.requests).toHaveLength(0);
  });

  it('removes the host copy when the container refuses the file', async () => {
    const runner = puttingRunner(() => ({ type: 'error', code: 'unsafe_path', message: 'no' }));
    const m = mirror();
    const put = putSessionFile({
      connection: runner.connect(),
      mirror: m,
      path: 'a.txt',
      data: Buffer.from('abc'),
      maxBytes: 100,
    });
    await expect(put).rejects.toMatchObject({ code: 'sandbox_file_rejected' });
    expect(await m.has('a.txt')).toBe(false);
  });
});

describe('readSessionFile and listSessionFiles', () => {
  it("read the host copy without a live container, naming each file's type", async () => {
    const m = mirror();
    await m.writeFrom('t.csv', (write) => write(Buffer.from('a,b')));
    const session = { live: undefined, mirror: m };
    expect((await readSessionFile(session, { path: 't.csv', maxBytes: 100 })).toString()).toBe('a,b');
    expect(await listSessionFiles(session)).toMatchObject([{ path: 't.csv', bytes: 3, mime: 'text/csv' }]);
  });

  it('read from the host copy when it has the file, else from the live container', async () => {
    const { connection, reads } = lyingRunner({ 'new.txt': Buffer.from('from the container') });
    const m = mirror();
    await m.writeFrom('kept.txt', (write) => write(Buffer.from('from the host')));
    const session = { live: { isAlive: true, connection } as unknown as LiveContainer, mirror: m };
    expect((await readSessionFile(session, { path: 'kept.txt', maxBytes: 100 })).toString()).toBe('from the host');
    expect(reads()).toBe(0);
    expect((await readSessionFile(session, { path: 'new.txt', maxBytes: 100 })).toString()).toBe('from the container');
    expect(reads()).toBe(1);
  });
});
