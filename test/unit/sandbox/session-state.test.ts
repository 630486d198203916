import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { saveState, StateStore } from '../../../sandbox/session-state.js';
import { FakeRunner } from './fake-runner.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function store(): StateStore {
  const dir = mkdtempSync(join(tmpdir(), 'threadlab-state-'));
  dirs.push(dir);
  return new StateStore(dir);
}

const limits = { maxBytes: 10_000, timeoutMs: 1000, graceMs: 100 };
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A supervisor's streamed save: `sent` goes out in chunks (a reset between attempts), then the kernel's report. */
function savingRunner(attempts: Buffer[], report: (last: Buffer) => Record<string, unknown>): FakeRunner {
  const runner = new FakeRunner();
  runner.onRequest = (req) => {
    if (req.op !== 'save_state') return;
    attempts.forEach((sent, i) => {
      if (i > 0) runner.sendChunk(req.id, Buffer.alloc(0), { reset: true });
      for (let at = 0; at < sent.length; at += 300) runner.sendChunk(req.id, sent.subarray(at, at + 300));
    });
    runner.send({ type: 'state', id: req.id, variables: 2, streamed: true, ...report(attempts.at(-1)!) });
  };
  return runner;
}

describe('saveState (streamed)', () => {
  it('keeps the bytes after the last reset when they match the digest the kernel gave, and says what it saved', async () => {
    const final = Buffer.from('x'.repeat(2500));
    const runner = savingRunner([Buffer.from('partial'), final], (b) => ({ bytes: b.length, digest: sha(b) }));
    const s = store();
    const outcome = await saveState(runner.connect(), s, limits);
    expect(outcome).toMatchObject({ kind: 'saved', bytes: 2500, variables: 2 });
    expect(runner.requests[0]).toMatchObject({ op: 'save_state', stream: true, maxBytes: 10_000 });
    expect(Buffer.compare(await readFile(join(s.dir, 'state.dill')), final)).toBe(0);
    expect((await s.meta())?.digest).toBe(sha(final));
  });

  it('bytes that do not match the digest leave no state behind', async () => {
    const runner = savingRunner([Buffer.from('abc')], () => ({ bytes: 3, digest: sha(Buffer.from('abd')) }));
    const s = store();
    const outcome = await saveState(runner.connect(), s, limits);
    expect(outcome).toMatchObject({ kind: 'failed', reason: expect.stringContaining('changed while it was copied') });
    expect(await s.meta()).toBeUndefined();
    expect(await readdir(s.dir).catch(() => [])).toEqual([]);
  });

  it('an unchanged state writes nothing and keeps the saved one', async () => {
    const first = Buffer.from('same');
    const s = store();
    await saveState(savingRunner([first], (b) => ({ bytes: b.length, digest: sha(b) })).connect(), s, limits);
    const savedAt = (await s.meta())?.savedAt;
    const again = savingRunner([first], (b) => ({ bytes: b.length, digest: sha(b), unchanged: true, streamed: false }));
    expect(await saveState(again.connect(), s, limits)).toEqual({ kind: 'unchanged' });
    expect(again.requests[0]).toMatchObject({ previousDigest: sha(first) });
    expect((await s.meta())?.savedAt).toBe(savedAt);
    expect((await readdir(s.dir)).sort()).toEqual(['state.dill', 'state.json']);
  });

  it('a second reset ends the connection (the supervisor resets at most once) and nothing is saved', async () => {
    const runner = savingRunner([Buffer.from('a'), Buffer.from('b'), Buffer.from('c')], (b) => ({
      bytes: b.length,
      digest: sha(b),
    }));
    const s = store();
    const connection = runner.connect();
    await expect(saveState(connection, s, limits)).rejects.toThrow(/restarted the transfer/);
    expect(connection.isClosed).toBe(true);
    expect(await s.meta()).toBeUndefined();
  });
});
