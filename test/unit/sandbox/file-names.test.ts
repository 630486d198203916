import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileMirror } from '../../../sandbox/file-mirror.js';
import { sanitizeFileName } from '../../../sandbox/file-names.js';
import { mimeFromName } from '../../../src/domain/mime.js';

describe('sanitizeFileName', () => {
  it('drops traversal and unsafe characters', () => {
    expect(sanitizeFileName('../../etc/passwd')).toBe('etc/passwd');
    expect(sanitizeFileName('/abs/a b.csv')).toBe('abs/a b.csv');
    expect(sanitizeFileName('..\\..\\win.txt')).toBe('win.txt');
    expect(sanitizeFileName('bad\u0000name;rm -rf.txt')).toBe('bad_name_rm -rf.txt');
    expect(sanitizeFileName('données.xlsx')).toBe('données.xlsx');
  });
  it('refuses names with nothing left', () => {
    expect(() => sanitizeFileName('../..')).toThrow(/cannot be used/);
  });
  it('guesses MIME types', () => {
    expect(mimeFromName('a/B.CSV')).toBe('text/csv');
    expect(mimeFromName('x.unknown')).toBe('application/octet-stream');
  });
});

describe('FileMirror', () => {
  const root = mkdtempSync(join(tmpdir(), 'mirror-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const mirror = new FileMirror(join(root, 'session'));

  it('writes, lists, reads and removes files', async () => {
    await mirror.write('a/b.txt', Buffer.from('B'));
    await mirror.write('c.txt', Buffer.from('CC'));
    expect((await mirror.list()).map((f) => [f.path, f.bytes])).toEqual([
      ['a/b.txt', 1],
      ['c.txt', 2],
    ]);
    expect((await mirror.read('a/b.txt')).toString()).toBe('B');
    await mirror.remove('c.txt');
    expect((await mirror.list()).map((f) => f.path)).toEqual(['a/b.txt']);
    await mirror.clear();
    expect(await mirror.isEmpty()).toBe(true);
  });

  it('refuses paths that leave the mirror', async () => {
    expect(() => mirror.resolve('../x')).toThrow(/Unsafe/);
    expect(() => mirror.resolve('a/../../x')).toThrow(/Unsafe/);
    await expect(mirror.read('missing.txt')).rejects.toMatchObject({ code: 'sandbox_file_rejected' });
  });
});
