import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './cli-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-'));
const env = cliEnv(dataDir);
// The one file that runs bin/threadlab.js on the TypeScript, as a checkout does (`npm start`), daemon
// included; every other spawn runs the compiled CLI the global set-up builds.
const cli = (args: string[], stdin = '') => runCli(args, { env, stdin, cwd: dataDir, entry: 'source' });

afterAll(async () => {
  await cli(['daemon', 'stop']);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('threadlab exec and chat (through the background daemon, real Docker)', () => {
  it('keeps state between calls with the same --session, and not without one', async () => {
    const first = await cli(['exec', '--session', 'calc', '-'], 'x = 41\nprint("set")');
    expect(first.stderr).not.toMatch(/failed/i);
    expect(first.stdout).toBe('set\n');
    expect(first.code).toBe(0);
    const second = await cli(['exec', '--session', 'calc', '-'], 'print(x + 1)');
    expect(second.stdout).toBe('42\n');
    const other = await cli(['exec', '-'], 'print(x)');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('NameError');
  });

  it('prints exactly the result object with --json and writes artifacts under --out', async () => {
    const out = join(dataDir, 'out');
    const res = await cli(
      ['exec', '--session', 'files', '--json', '--out', out, '-'],
      'open("report.csv","w").write("a,b\\n1,2\\n")\n6*7',
    );
    expect(res.code).toBe(0);
    const result = JSON.parse(res.stdout);
    expect(result).toMatchObject({ status: 'ok', executionCount: 1 });
    expect(result.displays[0].data['text/plain']).toBe('42');
    expect(result.artifacts).toEqual([expect.objectContaining({ path: 'report.csv', bytes: 8, change: 'created' })]);
    expect(readFileSync(join(out, 'report.csv'), 'utf8')).toBe('a,b\n1,2\n');
  });

  it('runs bash and reports a failing status with exit code 1', async () => {
    const file = join(dataDir, 'script.sh');
    writeFileSync(file, 'echo hello from bash; exit 3');
    const res = await cli(['exec', '--lang', 'bash', file]);
    expect(res.stdout).toContain('hello from bash');
    expect(res.code).toBe(1);
  });

  it('rejects bad arguments with a clear message', async () => {
    const res = await cli(['exec', '--lang', 'ruby', '-']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--lang: expected python, bash, r, javascript');
  });

  it('chat continues the same thread: an uploaded CSV, then direct-mode code that charts it', async () => {
    const csv = join(dataDir, 'sales.csv');
    writeFileSync(csv, 'month,revenue\nJan,10\nFeb,14\nMar,9\n');
    const upload = await cli(['chat', '--thread', 'lab', '--attach', csv, '--json']);
    expect(upload.code).toBe(0);
    const ack = JSON.parse(upload.stdout);
    expect(ack.text).toContain('sales.csv');
    expect(ack.text).toMatch(/3 rows/);

    const out = join(dataDir, 'chat-out');
    const code =
      '```python\nimport pandas as pd\ndf = pd.read_csv("sales.csv")\ndf.plot(x="month", y="revenue", title="Revenue")\nprint(df.revenue.sum())\n```';
    const res = await cli(['chat', '--thread', 'lab', '--out', out, '--json', code]);
    expect(res.code).toBe(0);
    const reply = JSON.parse(res.stdout);
    expect(reply.text).toContain('33');
    expect(reply.runs).toEqual([expect.objectContaining({ language: 'python', status: 'ok' })]);
    expect(reply.images.length).toBe(1);
    expect(readFileSync(reply.images[0]).subarray(1, 4).toString()).toBe('PNG');

    const again = await cli(['chat', '--thread', 'lab', '--json', '```python\nprint(len(df))\n```']);
    expect(JSON.parse(again.stdout).text).toContain('3');
  });

  it('answers natural language without an LLM by saying how to configure one', async () => {
    const res = await cli(['chat', '--thread', 'nollm', 'what is the mean revenue?']);
    expect(res.stdout).toMatch(/OPENAI_API_KEY/);
    expect(existsSync(join(dataDir, 'cli.sock'))).toBe(true);
  });
});
