import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/ports/sandbox.js';

/**
 * Code for the behaviours the contract needs, in what the sandbox under test runs: Python for Docker,
 * a script its handler reads for the fake (which runs no code; what is under test is the sandbox around it).
 */
export interface SandboxPrograms {
  /** Prints `text` and a newline. */
  print(text: string): string;
  /** Sets the interpreter variable `name` to `value`. */
  assign(name: string, value: number): string;
  /** Prints the variable `name`; an error of the code (NameError) when it is not defined. */
  printVariable(name: string): string;
  /** Raises an error of the code whose message is `message`. */
  fail(message: string): string;
  /** Sleeps `ms`, interruptibly. */
  sleep(ms: number): string;
  /** Writes `text` to `path` under /mnt/data, making its directories. */
  write(path: string, text: string): string;
  /** Writes `bytes` non-zero bytes to `path` under /mnt/data. */
  writeBytes(path: string, bytes: number): string;
  /** Deletes the file `path` under /mnt/data. */
  remove(path: string): string;
  /** Prints the text of the file `path` as it is. */
  printFile(path: string): string;
  /** Ends the interpreter's process (a crash). */
  crash(): string;
  /** One program doing each of `programs` in order. */
  sequence(...programs: string[]): string;
}

/** Limits the contract sets on the sandbox under test (small, so they can be reached quickly). */
export interface SandboxContractLimits {
  maxFileBytes: number;
  maxRunFilesBytes: number;
}

export interface SandboxUnderTest {
  sandbox: Sandbox;
  programs: SandboxPrograms;
  /** A file whose preview takes far longer than a second in this sandbox. */
  slowPreview: { name: string; data: Buffer };
  /** Closes the sandbox (again, if the test did) and removes everything it made. */
  dispose(): Promise<void>;
}

export type SandboxFactory = (limits: SandboxContractLimits) => Promise<SandboxUnderTest>;

const KIB = 1024;
const LIMITS: SandboxContractLimits = { maxFileBytes: 1024 * KIB, maxRunFilesBytes: 1536 * KIB };

async function* chunksOf(data: Buffer, chunkBytes: number): AsyncIterable<Uint8Array> {
  for (let offset = 0; offset < data.length; offset += chunkBytes) yield data.subarray(offset, offset + chunkBytes);
}

/** The behaviour every Sandbox must have (the fake and Docker alike); registers a describe block. */
export function sandboxContract(name: string, factory: SandboxFactory): void {
  describe(`Sandbox contract: ${name}`, () => {
    const made: SandboxUnderTest[] = [];
    const make = async (): Promise<SandboxUnderTest> => {
      const sut = await factory(LIMITS);
      made.push(sut);
      return sut;
    };
    afterEach(async () => {
      await Promise.all(made.splice(0).map((s) => s.dispose()));
    });

    it('returns output and errors of the code as data, streaming output as it comes', async () => {
      const { sandbox, programs: p } = await make();
      const streamed: string[] = [];
      const ok = await sandbox.run('k', {
        language: 'python',
        code: p.print('hello'),
        onStdout: (t) => streamed.push(t),
      });
      expect(ok).toMatchObject({ status: 'ok', stdout: 'hello\n', stderr: '', artifacts: [], executionCount: 1 });
      expect(ok.error).toBeUndefined();
      expect(streamed.join('')).toBe('hello\n');
      const failed = await sandbox.run('k', { language: 'python', code: p.fail('boom at row 7') });
      expect(failed.status).toBe('error');
      expect(failed.error?.name).toBeTruthy();
      expect(failed.error?.value).toContain('boom at row 7');
      // An error of the code leaves the interpreter as it was.
      expect(failed.executionCount).toBe(2);
      expect(sandbox.isLive('k')).toBe(true);
    });

    it('keeps variables between runs of a session; sessions share neither variables nor files', async () => {
      const { sandbox, programs: p } = await make();
      await sandbox.run('a', { language: 'python', code: p.sequence(p.assign('x', 41), p.write('mine.txt', 'a')) });
      const again = await sandbox.run('a', { language: 'python', code: p.printVariable('x') });
      expect(again).toMatchObject({ status: 'ok', stdout: '41\n', executionCount: 2 });
      expect(again.stateReset).toBeUndefined();
      const other = await sandbox.run('b', { language: 'python', code: p.printVariable('x') });
      expect(other.status).toBe('error');
      expect(other.executionCount).toBe(1);
      expect(await sandbox.listFiles('b')).toEqual([]);
      await expect(sandbox.readFile('b', 'mine.txt')).rejects.toMatchObject({ code: 'sandbox_file_rejected' });
    });

    it('interrupts a run at its time limit: a timeout naming the option to raise, variables kept', async () => {
      const { sandbox, programs: p } = await make();
      await sandbox.run('t', { language: 'python', code: p.assign('kept', 7) });
      const started = Date.now();
      const result = await sandbox.run('t', { language: 'python', code: p.sleep(30_000), timeoutMs: 500 });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(result).toMatchObject({ status: 'timeout', interruptedBy: 'timeout' });
      expect(result.error?.value).toContain('THREADLAB_SANDBOX_TIMEOUT_MS');
      expect(result.killReason).toBeUndefined();
      const after = await sandbox.run('t', { language: 'python', code: p.printVariable('kept') });
      expect(after).toMatchObject({ status: 'ok', stdout: '7\n' });
      expect(after.stateReset).toBeUndefined();
    });

    it("comes back from a user's stop as a stop, not a timeout, with variables kept", async () => {
      const { sandbox, programs: p } = await make();
      await sandbox.run('s', { language: 'python', code: p.assign('kept', 8) });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const started = Date.now();
      const result = await sandbox.run('s', { language: 'python', code: p.sleep(30_000), signal: controller.signal });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(result).toMatchObject({ status: 'timeout', interruptedBy: 'cancelled' });
      expect(result.error?.value).toMatch(/stopped/);
      expect(result.error?.value).not.toContain('THREADLAB_SANDBOX_TIMEOUT_MS');
      expect(result.killReason).toBeUndefined();
      const after = await sandbox.run('s', { language: 'python', code: p.printVariable('kept') });
      expect(after).toMatchObject({ status: 'ok', stdout: '8\n' });
    });

    it('puts a file where its name says, directories kept, and the session becomes live', async () => {
      const { sandbox, programs: p } = await make();
      expect(sandbox.isLive('u')).toBe(false);
      const file = await sandbox.putFile('u', 'in/sales data.csv', Buffer.from('a,b\n1,2\n'));
      expect(file).toMatchObject({ path: 'in/sales data.csv', bytes: 8, mime: 'text/csv' });
      expect(sandbox.isLive('u')).toBe(true);
      const outside = await sandbox.putFile('u', '../../etc/notes.txt', Buffer.from('n'));
      expect(outside.path).toBe('etc/notes.txt');
      const streamed = await sandbox.putFile('u', 'in/stream.bin', chunksOf(Buffer.alloc(300 * KIB, 2), 64 * KIB));
      expect(streamed.bytes).toBe(300 * KIB);
      expect((await sandbox.listFiles('u')).map((f) => f.path)).toEqual([
        'etc/notes.txt',
        'in/sales data.csv',
        'in/stream.bin',
      ]);
      expect((await sandbox.readFile('u', 'in/sales data.csv')).toString()).toBe('a,b\n1,2\n');
      const read = await sandbox.run('u', { language: 'python', code: p.printFile('in/sales data.csv') });
      expect(read).toMatchObject({ status: 'ok', stdout: 'a,b\n1,2\n', artifacts: [] });
    });

    it('refuses a file over the size limit, whole or streamed, and keeps no part of it', async () => {
      const { sandbox } = await make();
      const tooLarge = Buffer.alloc(LIMITS.maxFileBytes + 1, 3);
      await expect(sandbox.putFile('big', 'whole.bin', tooLarge)).rejects.toMatchObject({
        code: 'sandbox_file_rejected',
        isPolicy: true,
      });
      await expect(sandbox.putFile('big', 'streamed.bin', chunksOf(tooLarge, 256 * KIB))).rejects.toMatchObject({
        code: 'sandbox_file_rejected',
      });
      expect(await sandbox.listFiles('big')).toEqual([]);
    });

    it('reports files a run created or changed as artifacts, and reads them back as the run left them', async () => {
      const { sandbox, programs: p } = await make();
      await sandbox.putFile('f', 'input.csv', Buffer.from('x\n1\n'));
      const first = await sandbox.run('f', { language: 'python', code: p.write('out/report.txt', 'one') });
      expect(first.artifacts).toEqual([{ path: 'out/report.txt', bytes: 3, mime: 'text/plain', change: 'created' }]);
      expect(first.skippedArtifacts).toBeUndefined();
      const second = await sandbox.run('f', { language: 'python', code: p.write('out/report.txt', 'two!') });
      expect(second.artifacts).toEqual([{ path: 'out/report.txt', bytes: 4, mime: 'text/plain', change: 'modified' }]);
      const quiet = await sandbox.run('f', { language: 'python', code: p.print('nothing written') });
      expect(quiet.artifacts).toEqual([]);
      await sandbox.run('f', { language: 'python', code: p.write('scratch.txt', 's') });
      const removed = await sandbox.run('f', { language: 'python', code: p.remove('scratch.txt') });
      expect(removed.artifacts).toEqual([]);
      await expect(sandbox.readFile('f', 'scratch.txt')).rejects.toMatchObject({ code: 'sandbox_file_rejected' });
      expect((await sandbox.readFile('f', 'out/report.txt')).toString()).toBe('two!');
      expect((await sandbox.listFiles('f')).map((f) => [f.path, f.bytes])).toEqual([
        ['input.csv', 4],
        ['out/report.txt', 4],
      ]);
      await expect(sandbox.readFile('f', 'missing.txt')).rejects.toMatchObject({ code: 'sandbox_file_rejected' });
      await expect(sandbox.readFile('f', '../outside.txt')).rejects.toMatchObject({ code: 'sandbox_file_rejected' });
    });

    it('lists the files a run does not bring back, with why, and brings back the others', async () => {
      const { sandbox, programs: p } = await make();
      const result = await sandbox.run('skip', {
        language: 'python',
        code: p.sequence(
          p.writeBytes('a.bin', 800 * KIB),
          p.writeBytes('b.bin', 800 * KIB),
          p.writeBytes('big.bin', LIMITS.maxFileBytes + 1),
          p.write('note.txt', 'small'),
        ),
      });
      expect(result.status).toBe('ok');
      expect(result.artifacts.map((a) => [a.path, a.bytes])).toEqual([
        ['a.bin', 800 * KIB],
        ['note.txt', 5],
      ]);
      const skipped = result.skippedArtifacts ?? [];
      expect(skipped.map((s) => [s.path, s.bytes])).toEqual([
        ['b.bin', 800 * KIB],
        ['big.bin', LIMITS.maxFileBytes + 1],
      ]);
      expect(skipped[0]?.reason).toMatch(/total per run/);
      expect(skipped[1]?.reason).toMatch(/file limit/);
      // Not brought back is not lost: the files stay in /mnt/data, and one over the limit is not read out.
      expect((await sandbox.listFiles('skip')).map((f) => f.path)).toEqual(['a.bin', 'b.bin', 'big.bin', 'note.txt']);
      expect((await sandbox.readFile('skip', 'a.bin')).length).toBe(800 * KIB);
      await expect(sandbox.readFile('skip', 'big.bin')).rejects.toMatchObject({ code: 'sandbox_file_rejected' });
    });

    it('a run that kills the interpreter says so in its own result; files are kept', async () => {
      const { sandbox, programs: p } = await make();
      await sandbox.run('c', { language: 'python', code: p.sequence(p.assign('gone', 1), p.write('kept.txt', 'k')) });
      const crashed = await sandbox.run('c', { language: 'python', code: p.crash() });
      expect(crashed.status).toBe('killed');
      expect(crashed.killReason).toBe('crash');
      expect(crashed.stateReset?.reason).toBeTruthy();
      // Whether the session stays live is the implementation's: Docker starts a new kernel in the same
      // container (files and /tmp kept), the fake drops its session; either way the variables are gone.
      const next = await sandbox.run('c', { language: 'python', code: p.printVariable('gone') });
      expect(next).toMatchObject({ status: 'error', executionCount: 1 });
      expect(next.stateReset).toBeUndefined(); // said once, by the run that lost them
      expect((await sandbox.readFile('c', 'kept.txt')).toString()).toBe('k');
    });

    it('reset forgets variables and files and ends the session', async () => {
      const { sandbox, programs: p } = await make();
      await sandbox.reset('never-used');
      await sandbox.putFile('r', 'up.txt', Buffer.from('u'));
      await sandbox.run('r', { language: 'python', code: p.sequence(p.assign('x', 1), p.write('made.txt', 'm')) });
      expect(sandbox.isLive('r')).toBe(true);
      await sandbox.reset('r');
      expect(sandbox.isLive('r')).toBe(false);
      expect(await sandbox.listFiles('r')).toEqual([]);
      await expect(sandbox.readFile('r', 'made.txt')).rejects.toMatchObject({ code: 'sandbox_file_rejected' });
      const fresh = await sandbox.run('r', { language: 'python', code: p.printVariable('x') });
      expect(fresh).toMatchObject({ status: 'error', executionCount: 1 });
      expect(fresh.stateReset).toBeUndefined();
    });

    it('previews data files; a missing file is said, not thrown', async () => {
      const { sandbox } = await make();
      await sandbox.putFile('p', 'data.csv', Buffer.from('a,b\n1,x\n2,y\n'));
      const [table, missing] = await sandbox.previewFiles('p', ['data.csv', 'nope.csv']);
      expect(table).toMatchObject({ path: 'data.csv', kind: 'table', tables: [{ rows: 2 }] });
      expect(table?.tables?.[0]?.columns.map((c) => c.name)).toEqual(['a', 'b']);
      expect(table?.error).toBeUndefined();
      expect(missing?.error).toBeTruthy();
    });

    it('previews within a time budget: a slow file and those after it are skipped with why, files kept', async () => {
      const { sandbox, programs: p, slowPreview } = await make();
      await sandbox.putFile('b', slowPreview.name, slowPreview.data);
      await sandbox.putFile('b', 'after.csv', Buffer.from('a\n1\n'));
      const started = Date.now();
      const [slow, after] = await sandbox.previewFiles('b', [slowPreview.name, 'after.csv'], { timeoutMs: 1000 });
      expect(Date.now() - started).toBeLessThan(1000 + 2500);
      expect(slow?.error).toBe(
        `preview skipped: reading ${slowPreview.name} took longer than 1 s; the file is in /mnt/data`,
      );
      expect(after?.error).toMatch(/^preview skipped: the 1 s preview time limit was used up by earlier files/);
      expect((await sandbox.listFiles('b')).map((f) => f.path)).toEqual(['after.csv', slowPreview.name]);
      expect((await sandbox.run('b', { language: 'python', code: p.print('still here') })).stdout).toBe('still here\n');
    });

    it("stops a slow preview at the user's request", async () => {
      const { sandbox, slowPreview } = await make();
      await sandbox.putFile('st', slowPreview.name, slowPreview.data);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const started = Date.now();
      const [slow] = await sandbox.previewFiles('st', [slowPreview.name], {
        timeoutMs: 60_000,
        signal: controller.signal,
      });
      expect(Date.now() - started).toBeLessThan(300 + 2500);
      expect(slow?.error).toBe(
        `preview skipped: reading ${slowPreview.name} was stopped at your request; the file is in /mnt/data`,
      );
    });

    it('describes its environment and limits, and after close runs nothing and holds no session', async () => {
      const { sandbox, programs: p } = await make();
      const env = await sandbox.environment();
      expect(env.limits).toMatchObject({ maxFileMb: 1, network: false });
      expect(env.python).toMatch(/^3\.\d+/);
      await sandbox.run('z', { language: 'python', code: p.print('up') });
      expect(sandbox.isLive('z')).toBe(true);
      await sandbox.close();
      expect(sandbox.isLive('z')).toBe(false);
      await expect(sandbox.run('z', { language: 'python', code: p.print('late') })).rejects.toMatchObject({
        code: 'sandbox_start_failed',
      });
    });
  });
}
