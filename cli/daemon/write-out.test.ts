import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutWriter } from './write-out.js';

let base: string;
let out: string;
let outside: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'threadlab-out-'));
  out = join(base, 'out');
  outside = join(base, 'outside');
  mkdirSync(out);
  mkdirSync(outside);
  writeFileSync(join(outside, 'config'), 'precious');
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

const data = Buffer.from('from the sandbox');

describe('OutWriter', () => {
  it('writes plain and nested names under the directory', async () => {
    const writer = new OutWriter({ outDir: out });
    expect(await writer.write('report.csv', data)).toBe(join(out, 'report.csv'));
    expect(await writer.write('charts/2024/q1.png', data)).toBe(join(out, 'charts/2024/q1.png'));
    expect(readFileSync(join(out, 'charts/2024/q1.png'), 'utf8')).toBe('from the sandbox');
    expect(writer.result()).toEqual({
      written: [join(out, 'report.csv'), join(out, 'charts/2024/q1.png')],
      refused: [],
    });
  });

  it('creates a missing output directory', async () => {
    const writer = new OutWriter({ outDir: join(out, 'new', 'deeper') });
    expect(await writer.write('a.txt', data)).toBe(join(out, 'new', 'deeper', 'a.txt'));
  });

  it('never follows a symlink to a file outside', async () => {
    symlinkSync(join(outside, 'config'), join(out, 'report.csv'));
    const writer = new OutWriter({ outDir: out, overwrite: true });
    expect(await writer.write('report.csv', data)).toBeUndefined();
    expect(readFileSync(join(outside, 'config'), 'utf8')).toBe('precious');
    expect(writer.result().refused).toEqual([{ name: 'report.csv', reason: expect.stringMatching(/symbolic link/) }]);
  });

  it('never follows a dangling symlink (which O_CREAT alone would create through)', async () => {
    symlinkSync(join(outside, 'new-file'), join(out, 'x.txt'));
    const writer = new OutWriter({ outDir: out });
    expect(await writer.write('x.txt', data)).toBeUndefined();
    expect(existsSync(join(outside, 'new-file'))).toBe(false);
  });

  it('never writes through a symlinked subdirectory', async () => {
    symlinkSync(outside, join(out, 'sub'));
    const writer = new OutWriter({ outDir: out });
    expect(await writer.write('sub/config', data)).toBeUndefined();
    expect(await writer.write('sub/fresh.txt', data)).toBeUndefined();
    expect(readFileSync(join(outside, 'config'), 'utf8')).toBe('precious');
    expect(existsSync(join(outside, 'fresh.txt'))).toBe(false);
    expect(writer.result().refused.map((r) => r.reason)).toEqual([
      expect.stringMatching(/sub\/ is a symbolic link/),
      expect.stringMatching(/sub\/ is a symbolic link/),
    ]);
  });

  it('refuses dot paths, "..", absolute and odd names', async () => {
    mkdirSync(join(out, '.git'));
    writeFileSync(join(out, '.git', 'config'), 'repo config');
    const writer = new OutWriter({ outDir: out, overwrite: true });
    const names = [
      '.git/config',
      '.bashrc',
      'a/.hidden/b',
      '../outside/config',
      'a/../../x',
      '/etc/passwd',
      'a//b',
      'a\\b',
      'a\nb',
      '',
    ];
    for (const name of names) expect(await writer.write(name, data)).toBeUndefined();
    expect(readFileSync(join(out, '.git', 'config'), 'utf8')).toBe('repo config');
    expect(readFileSync(join(outside, 'config'), 'utf8')).toBe('precious');
    expect(writer.result().refused.map((r) => r.reason)).toEqual([
      'dot path (.git)',
      'dot path (.bashrc)',
      'dot path (.hidden)',
      '".." in the path',
      '".." in the path',
      'absolute path',
      'empty path component',
      'control characters or backslashes in the name',
      'control characters or backslashes in the name',
      'empty name',
    ]);
  });

  it('refuses an existing file unless asked, and then replaces the entry, not a hard-linked file', async () => {
    writeFileSync(join(out, 'report.csv'), 'mine');
    const refusing = new OutWriter({ outDir: out });
    expect(await refusing.write('report.csv', data)).toBeUndefined();
    expect(readFileSync(join(out, 'report.csv'), 'utf8')).toBe('mine');
    expect(refusing.result().refused[0]!.reason).toMatch(/exists \(use --overwrite/);

    linkSync(join(outside, 'config'), join(out, 'linked.txt'));
    const overwriting = new OutWriter({ outDir: out, overwrite: true });
    expect(await overwriting.write('report.csv', data)).toBe(join(out, 'report.csv'));
    expect(await overwriting.write('linked.txt', data)).toBe(join(out, 'linked.txt'));
    expect(readFileSync(join(out, 'report.csv'), 'utf8')).toBe('from the sandbox');
    expect(readFileSync(join(out, 'linked.txt'), 'utf8')).toBe('from the sandbox');
    expect(readFileSync(join(outside, 'config'), 'utf8')).toBe('precious');
    expect(lstatSync(join(outside, 'config')).nlink).toBe(1);
  });

  it('refuses a name whose directory part is an existing file', async () => {
    writeFileSync(join(out, 'a'), 'file');
    const writer = new OutWriter({ outDir: out });
    expect(await writer.write('a/b.txt', data)).toBeUndefined();
    expect(writer.result().refused[0]!.reason).toBe('a exists and is not a directory');
  });

  it('stops at maxFiles and maxDepth', async () => {
    const writer = new OutWriter({ outDir: out, maxFiles: 2, maxDepth: 2 });
    expect(await writer.write('a/b/c.txt', data)).toBeDefined();
    expect(await writer.write('a/b/c/d.txt', data)).toBeUndefined();
    expect(await writer.write('two.txt', data)).toBeDefined();
    expect(await writer.write('three.txt', data)).toBeUndefined();
    expect(writer.result().refused).toEqual([
      { name: 'a/b/c/d.txt', reason: 'nested deeper than 2 directories' },
      { name: 'three.txt', reason: 'over the limit of 2 files per call' },
    ]);
    expect(existsSync(join(out, 'three.txt'))).toBe(false);
  });
});

describe('OutWriter: one call writes a name once', () => {
  it('writes a file the reply carries twice (image and file of the run) once, and reports it once', async () => {
    const writer = new OutWriter({ outDir: out });
    expect(await writer.write('chart.png', data)).toBe(join(out, 'chart.png'));
    expect(await writer.write('chart.png', Buffer.from(data))).toBe(join(out, 'chart.png'));
    expect(writer.result()).toEqual({ written: [join(out, 'chart.png')], refused: [] });
  });

  it('writes a different file under a name this call already wrote beside it, never over it', async () => {
    const writer = new OutWriter({ outDir: out });
    await writer.write('plots/chart.png', data);
    expect(await writer.write('plots/chart.png', Buffer.from('the original'))).toBe(join(out, 'plots/chart (2).png'));
    expect(await writer.write('plots/chart.png', Buffer.from('a third'))).toBe(join(out, 'plots/chart (3).png'));
    expect(readFileSync(join(out, 'plots/chart.png'), 'utf8')).toBe('from the sandbox');
    expect(readFileSync(join(out, 'plots/chart (2).png'), 'utf8')).toBe('the original');
    expect(writer.result().refused).toEqual([]);
  });

  it('still refuses a name that existed before the call', async () => {
    writeFileSync(join(out, 'chart.png'), 'mine');
    const writer = new OutWriter({ outDir: out });
    expect(await writer.write('chart.png', data)).toBeUndefined();
    expect(await writer.write('chart.png', data)).toBeUndefined();
    expect(readFileSync(join(out, 'chart.png'), 'utf8')).toBe('mine');
    expect(writer.result().refused).toHaveLength(2);
  });
});
