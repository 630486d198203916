import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeUploads } from '../../../src/core/previews.js';
import { threadHash } from '../../../src/domain/thread-key.js';
import { containersOf, docker, makeSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { buildXlsx } from './xlsx.js';

/** A spreadsheet that declares about 40 M cells (XFD2442) and holds 8 M in its first data row, ~150 KB zipped. */
async function bombXlsx(): Promise<Buffer> {
  return buildXlsx({
    rows: [
      ['name', 'value'],
      ['a', 1],
    ],
    dimension: 'A1:XFD2442',
    padCells: 8_000_000,
  });
}

describe('upload previews in the real sandbox: time budget, Stop, and bounded size', () => {
  let t: TestSandbox;

  beforeAll(async () => {
    t = await makeSandbox('previews', { maxFileBytes: 32 * 1024 * 1024, dataMb: 128, previewTimeoutMs: 3000 });
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  it('previews a real workbook read with row and column bounds', async () => {
    const xlsx = await buildXlsx({
      rows: [
        ['city', 'sales'],
        ['Oslo', 10],
        ['Lima', 20],
        ['Pune', 30],
      ],
      dimension: 'A1:B4',
    });
    await t.sandbox.putFile('ok', 'sales.xlsx', xlsx);
    const [preview] = await t.sandbox.previewFiles('ok', ['sales.xlsx']);
    expect(preview?.error).toBeUndefined();
    expect(preview?.tables?.[0]).toMatchObject({ sheet: 'Data', rows: 3, columnCount: 2 });
    expect(preview?.tables?.[0]?.columns.map((c) => c.name)).toEqual(['city', 'sales']);
    expect(preview?.tables?.[0]?.head).toContain('Lima');
  });

  it('skips a workbook that takes longer than the budget, says so, and keeps the file and the session', async () => {
    const xlsx = await bombXlsx();
    expect(xlsx.length).toBeLessThan(2 * 1024 * 1024);
    const file = await t.sandbox.putFile('bomb', 'big.xlsx', xlsx);
    await t.sandbox.putFile('bomb', 'small.csv', Buffer.from('a,b\n1,2\n'));
    const started = Date.now();
    // A budget well inside the time this file needs to exhaust the sandbox's 512 MB: near 3 s a quiet machine's
    // parse reaches the memory limit first and the skip says "ran out of memory" (a correct answer, another test).
    const [big, small] = await t.sandbox.previewFiles('bomb', ['big.xlsx', 'small.csv'], { timeoutMs: 1200 });
    const elapsedMs = Date.now() - started;
    expect(elapsedMs).toBeLessThan(1200 + 1500);
    expect(big?.error).toBe('preview skipped: reading big.xlsx took longer than 1.2 s; the file is in /mnt/data');
    expect(big?.bytes).toBe(file.bytes);
    // The budget is for the request: what is left after the slow file is used up too, and said.
    expect(small?.error).toMatch(/^preview skipped: the 1.2 s preview time limit was used up by earlier files/);
    expect(describeUploads([file], [big!])).toContain('`big.xlsx` (');
    expect((await t.sandbox.listFiles('bomb')).map((f) => f.path)).toContain('big.xlsx');
    const after = await t.sandbox.run('bomb', { language: 'python', code: 'import os; os.path.getsize("big.xlsx")' });
    expect(after.status).toBe('ok');
    console.info(`[measure] 40M-cell workbook (${xlsx.length} bytes) preview answered in ${elapsedMs} ms`);
  });

  it('a workbook that needs more memory than the sandbox has is skipped as such, and the thread keeps its variables', async () => {
    await t.sandbox.run('oom', { language: 'python', code: 'kept = 41 + 1' });
    await t.sandbox.putFile('oom', 'big.xlsx', await bombXlsx());
    const [big] = await t.sandbox.previewFiles('oom', ['big.xlsx'], { timeoutMs: 60_000 });
    expect(big?.error).toBe('preview skipped: reading big.xlsx ran out of memory; the file is in /mnt/data');
    const after = await t.sandbox.run('oom', { language: 'python', code: 'kept' });
    expect(after.status).toBe('ok');
    expect(after.displays[0]?.data['text/plain']).toBe('42');
  });

  it('Stop interrupts a slow preview promptly', async () => {
    const xlsx = await bombXlsx();
    await t.sandbox.putFile('stop', 'big.xlsx', xlsx);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 700);
    const started = Date.now();
    const [big] = await t.sandbox.previewFiles('stop', ['big.xlsx'], { timeoutMs: 60_000, signal: controller.signal });
    const elapsedMs = Date.now() - started;
    expect(elapsedMs).toBeLessThan(700 + 1000);
    expect(big?.error).toBe('preview skipped: reading big.xlsx was stopped at your request; the file is in /mnt/data');
    const after = await t.sandbox.run('stop', { language: 'python', code: '6 * 7' });
    expect(after.status).toBe('ok');
    console.info(`[measure] Stop 700 ms into a slow preview: answered after ${elapsedMs} ms`);
  });

  // The host's own deadline, whatever the runtime: freezing the container is only how the test makes it silent
  // (a frozen gVisor sandbox also takes seconds longer to remove, which is not what is measured here).
  it(
    'a runner that does not answer within its budget is killed at budget + grace, and the files are still said',
    { tags: ['runtime-independent'] },
    async () => {
      await t.sandbox.putFile('stuck', 'data.csv', Buffer.from('a\n1\n'));
      // The user's code cannot reach the supervisor's preview any more (it runs in its own kernel process),
      // so the container is frozen from the host instead: whatever stops the runner, the host must not wait.
      const all = await containersOf(t.instanceId);
      const mine = all.filter((c) => c.Labels['dev.threadlab.session'] === threadHash('stuck'));
      expect(mine).toHaveLength(1);
      await docker.getContainer(mine[0]!.Id).pause();
      const started = Date.now();
      const [stuck] = await t.sandbox.previewFiles('stuck', ['data.csv'], { timeoutMs: 1000 });
      const elapsedMs = Date.now() - started;
      expect(elapsedMs).toBeLessThan(1000 + 1500 + 1500);
      expect(stuck?.error).toMatch(/^preview skipped: the sandbox did not answer within 3 s and was restarted/);
      const after = await t.sandbox.run('stuck', { language: 'python', code: 'open("data.csv").read()' });
      expect(after.status).toBe('ok');
      expect(after.displays[0]?.data['text/plain']).toContain('a\\n1');
    },
  );

  it('a CSV with a million columns gives a bounded preview and a bounded upload note', async () => {
    const columns = 1_000_000;
    const header = Array.from({ length: columns }, (_, i) => `c${i}`).join(',');
    const row = '1,'.repeat(columns - 1) + '1';
    const csv = Buffer.from(`${header}\n${row}\n${row}\n`);
    const file = await t.sandbox.putFile('wide', 'wide.csv', csv);
    const [preview] = await t.sandbox.previewFiles('wide', ['wide.csv'], { timeoutMs: 30_000 });
    expect(preview?.error).toBeUndefined();
    const table = preview!.tables![0]!;
    expect(table).toMatchObject({ rows: 2, columnCount: columns });
    expect(table.columns.length).toBeLessThanOrEqual(50);
    expect(table.head.length).toBeLessThanOrEqual(2000);
    const previewBytes = Buffer.byteLength(JSON.stringify(preview));
    expect(previewBytes).toBeLessThan(8 * 1024);
    const note = describeUploads([file], [preview!]);
    expect(note.length).toBeLessThan(2000);
    expect(note).toContain('2 rows × 1,000,000 columns');
    console.info(
      `[measure] 1,000,000-column CSV (${csv.length} bytes): preview ${previewBytes} bytes, note ${note.length} chars`,
    );
  });
});
