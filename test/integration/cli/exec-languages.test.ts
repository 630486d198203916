import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './cli-process.js';

/** `threadlab exec --lang r|javascript` through the shipped CLI and its daemon (issue 17). */
const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-lang-'));
const env = cliEnv(dataDir);
const cli = (args: string[], stdin = '') => runCli(args, { env, stdin, cwd: dataDir });

afterAll(async () => {
  await cli(['daemon', 'stop']);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('threadlab exec --lang', () => {
  it('runs R and JavaScript in a --session, each keeping its variables', async () => {
    const set = await cli(['exec', '--session', 'poly', '--lang', 'r', '-'], 'x <- c(1, 2, 3)\ncat("set\\n")');
    expect(set.stderr).not.toMatch(/failed/i);
    expect(set).toMatchObject({ code: 0, stdout: 'set\n' });
    const mean = await cli(['exec', '--session', 'poly', '--lang', 'r', '--json', '-'], 'mean(x) * 10');
    expect(JSON.parse(mean.stdout).displays[0].data['text/plain']).toBe('[1] 20');
    await cli(['exec', '--session', 'poly', '--lang', 'js', '-'], 'let n = 5');
    const js = await cli(['exec', '--session', 'poly', '--lang', 'javascript', '--json', '-'], 'n * 2');
    expect(JSON.parse(js.stdout)).toMatchObject({ status: 'ok', displays: [{ data: { 'text/plain': '10' } }] });
    const failed = await cli(['exec', '--session', 'poly', '--lang', 'r', '-'], 'stop("nope")');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('nope');
  });
});
