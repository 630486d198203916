import { describe, expect, it } from 'vitest';
import { describeUploads, UPLOAD_NOTE_LIMITS } from '../../../src/core/previews.js';
import type { FilePreview, SandboxFile } from '../../../src/domain/execution.js';
import { buildSystemPrompt } from '../../../src/interpreter/system-prompt.js';

const file = (path: string, bytes = 1000): SandboxFile => ({ path, bytes, mime: 'text/csv', modifiedMs: 0 });

describe('describeUploads: the upload note is bounded whatever the sandbox claims', () => {
  it('a preview claiming a million columns and megabyte lines gives a short note', () => {
    const columns = Array.from({ length: 1_000_000 }, (_, i) => ({ name: `c${i}`, dtype: 'int64' }));
    const head = Array.from({ length: 100 }, () => 'x'.repeat(1_000_000)).join('\n');
    const preview: FilePreview = {
      path: 'wide.csv',
      bytes: 9_000_000,
      kind: 'table',
      tables: [{ rows: 2, columns, head }],
    };
    const note = describeUploads([file('wide.csv', 9_000_000)], [preview]);
    expect(note.length).toBeLessThan(2500);
    expect(note).toContain(
      '2 rows × 1,000,000 columns (c0: int64, c1: int64, c2: int64, c3: int64, c4: int64, c5: int64, …)',
    );
    const longest = Math.max(...note.split('\n').map((l) => l.length));
    expect(longest).toBeLessThanOrEqual(UPLOAD_NOTE_LIMITS.headLineChars + 200);
  });

  it('5,000 files are described 20 at a time with one line for the rest', () => {
    const files = Array.from({ length: 5000 }, (_, i) => file(`f${i}.csv`));
    const note = describeUploads(files, []);
    expect(note.split('\n')).toHaveLength(1 + 20 + 1 + 1);
    expect(note).toContain('• … and 4,980 more files, all in `/mnt/data`');
  });

  it('a preview skipped on time says so, with where the file is', () => {
    const preview: FilePreview = {
      path: 'big.xlsx',
      bytes: 2_000_000,
      kind: 'binary',
      error: 'preview skipped: reading big.xlsx took longer than 10 s; the file is in /mnt/data',
    };
    expect(describeUploads([file('big.xlsx', 2_000_000)], [preview])).toContain(
      '• `big.xlsx` (1.9 MB) — preview skipped: reading big.xlsx took longer than 10 s; the file is in /mnt/data',
    );
  });
});

describe('the model sees the same bounded preview', () => {
  const environment = {
    imageVersion: 'test',
    python: '3.13',
    packages: { pandas: '2.2' },
    limits: { memoryMb: 1024, cpus: 1, timeoutMs: 60_000, dataMb: 512, maxFileMb: 100, network: false as const },
  };

  it('names at most 50 of a million columns and says how many there are; a skipped preview says why', () => {
    const columns = Array.from({ length: 1_000_000 }, (_, i) => ({ name: `c${i}`, dtype: 'int64' }));
    const prompt = buildSystemPrompt({
      environment,
      files: [file('wide.csv', 9_000_000), file('big.xlsx', 2_000_000)],
      previews: [
        { path: 'wide.csv', bytes: 9_000_000, kind: 'table', tables: [{ rows: 2, columns, head: '' }] },
        {
          path: 'big.xlsx',
          bytes: 2_000_000,
          kind: 'binary',
          error: 'preview skipped: reading big.xlsx took longer than 10 s; the file is in /mnt/data',
        },
      ],
      uploaded: ['wide.csv', 'big.xlsx'],
      trimmedEntries: 0,
    });
    expect(prompt.length).toBeLessThan(12_000);
    expect(prompt).toContain('2 rows; 1000000 columns, the first 50: c0 (int64), c1 (int64)');
    expect(prompt).not.toContain('c50 (int64)');
    expect(prompt).toContain('  (preview skipped: reading big.xlsx took longer than 10 s; the file is in /mnt/data)');
  });
});
