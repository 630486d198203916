import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './cli-process.js';

const base = mkdtempSync(join(tmpdir(), 'threadlab-cli-out-'));
const dataDir = join(base, 'data');
const out = join(base, 'out');
const outside = join(base, 'outside');
const env = cliEnv(dataDir);

// Sandbox code that chooses hostile names for the files it leaves in /mnt/data.
const HOSTILE = [
  'import os',
  'for d in [".git", "sub", "nested/deeper"]: os.makedirs(d, exist_ok=True)',
  'for name in [".git/config", ".bashrc", "sub/config", "sub/fresh.txt", "linked.csv", "report.csv", "fine.csv", "nested/deeper/ok.txt"]:',
  '    open(name, "w").write("from the sandbox: " + name)',
].join('\n');

beforeAll(() => {
  mkdirSync(out);
  mkdirSync(outside);
  mkdirSync(join(out, '.git'));
  writeFileSync(join(out, '.git', 'config'), '[core] mine');
  writeFileSync(join(outside, 'config'), 'precious');
  symlinkSync(join(outside, 'config'), join(out, 'linked.csv')); // a link to a file outside
  symlinkSync(outside, join(out, 'sub')); // a symlinked subdirectory
  writeFileSync(join(out, 'report.csv'), 'my own report'); // an existing file
});

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env });
  rmSync(base, { recursive: true, force: true });
});

function untouched(): void {
  expect(readFileSync(join(outside, 'config'), 'utf8')).toBe('precious');
  expect(existsSync(join(outside, 'fresh.txt'))).toBe(false);
  expect(readFileSync(join(out, '.git', 'config'), 'utf8')).toBe('[core] mine');
  expect(existsSync(join(out, '.bashrc'))).toBe(false);
  expect(lstatSync(join(out, 'linked.csv')).isSymbolicLink()).toBe(true);
  expect(lstatSync(join(out, 'sub')).isSymbolicLink()).toBe(true);
}

describe('threadlab exec --out and chat --out write only their own files (real processes, real Docker)', () => {
  it('exec refuses dot paths, links in DIR and existing files, and says which and why', async () => {
    const run = await runCli(['exec', '--session', 'hostile', '--json', '--out', out, '-'], { env, stdin: HOSTILE });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.status).toBe('ok');
    expect(result.out.written.sort()).toEqual([join(out, 'fine.csv'), join(out, 'nested/deeper/ok.txt')]);
    const refused = Object.fromEntries(
      result.out.refused.map((r: { name: string; reason: string }) => [r.name, r.reason]),
    );
    expect(refused).toEqual({
      '.git/config': 'dot path (.git)',
      '.bashrc': 'dot path (.bashrc)',
      'sub/config': 'sub/ is a symbolic link in the output directory',
      'sub/fresh.txt': 'sub/ is a symbolic link in the output directory',
      'linked.csv': 'a symbolic link with this name is in the output directory',
      'report.csv': 'a file with this name exists (use --overwrite to replace it)',
    });
    expect(run.stderr).toContain('Not written under --out: "report.csv": a file with this name exists');
    expect(run.stderr).toContain('Not written under --out: ".git/config": dot path (.git)');
    untouched();
    expect(readFileSync(join(out, 'report.csv'), 'utf8')).toBe('my own report');
    expect(readFileSync(join(out, 'fine.csv'), 'utf8')).toBe('from the sandbox: fine.csv');
  });

  it('exec --overwrite replaces existing regular files only', async () => {
    const touch = 'for n in ["report.csv", "linked.csv", ".git/config"]: open(n, "a").write("!")';
    const run = await runCli(['exec', '--session', 'hostile', '--out', out, '--overwrite', '-'], { env, stdin: touch });
    expect(run.code).toBe(1);
    expect(readFileSync(join(out, 'report.csv'), 'utf8')).toBe('from the sandbox: report.csv!');
    expect(run.stderr).toContain('"linked.csv": a symbolic link with this name is in the output directory');
    expect(run.stderr).toContain('".git/config": dot path (.git)');
    untouched();
    const plain = await runCli(['exec', '--overwrite', '-'], { env, stdin: 'print(1)' });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('--overwrite: only meaningful with --out DIR');
  });

  it('chat --out refuses the same names, in its --json reply too', async () => {
    const code = '```python\nopen("linked.csv", "w").write("x")\nopen("report.csv", "w").write("y")\n```';
    const run = await runCli(['chat', '--thread', 'hostile', '--json', '--out', out, code], { env });
    expect(run.code).toBe(1);
    const reply = JSON.parse(run.stdout);
    expect(reply.refused).toEqual(
      expect.arrayContaining([
        { name: 'linked.csv', reason: 'a symbolic link with this name is in the output directory' },
        { name: 'report.csv', reason: 'a file with this name exists (use --overwrite to replace it)' },
      ]),
    );
    expect(reply.files).toEqual([]);
    expect(run.stderr).toContain('Not written under --out: "linked.csv"');
    untouched();
  });

  it('chat --out writes a chart that is both an image and a file of the run once, and exits 0', async () => {
    const chartOut = join(base, 'chart-out');
    const code = [
      '```python',
      'import matplotlib',
      'matplotlib.use("Agg")',
      'import matplotlib.pyplot as plt',
      'plt.plot([1, 2, 3], [2, 4, 3])',
      'plt.savefig("chart.png")',
      'plt.close()',
      'open("summary.csv", "w").write("x,y\\n1,2\\n")',
      '```',
    ].join('\n');
    const run = await runCli(['chat', '--thread', 'chart-once', '--json', '--out', chartOut, code], { env });
    expect(run.stderr).not.toContain('Not written under --out');
    expect(run.code).toBe(0);
    const reply = JSON.parse(run.stdout);
    expect(reply.refused).toEqual([]);
    expect(reply.images).toEqual([join(chartOut, 'chart.png')]);
    expect(reply.files.sort()).toEqual([join(chartOut, 'chart.png'), join(chartOut, 'summary.csv')]);
    expect(readdirSync(chartOut).sort()).toEqual(['chart.png', 'summary.csv']);
    expect(readFileSync(join(chartOut, 'chart.png')).subarray(1, 4).toString()).toBe('PNG');
  });
});
