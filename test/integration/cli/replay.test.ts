import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './cli-process.js';

/** `threadlab replay` as a process: its help, and bad input refused with exit status 2 before anything runs. */
describe.concurrent('threadlab replay (process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-cli-'));
  const env = cliEnv(join(dir, 'data'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is listed and has --help', async () => {
    const list = await runCli(['--help'], { env });
    expect(list.stdout).toMatch(/replay +play a recorded turn/);
    const help = await runCli(['replay', '--help'], { env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: threadlab replay FILE');
    expect(help.stdout).toContain('Exit status: 0 when every request is the same, 1 when one differs');
  });

  it.each([
    ['no FILE', [], /replay needs exactly one FILE/],
    ['a missing file', ['missing.jsonl'], /missing\.jsonl cannot be read: ENOENT/],
    ['a directory', ['.'], /is not a file/],
    [
      'another JSONL file',
      ['other.jsonl'],
      /other\.jsonl is not a Threadlab recording: its first line is not a recording header/,
    ],
    ['an unknown flag', ['--fast', 'x'], /Unknown option '--fast'/],
  ])('refuses %s with exit status 2', async (_what, args, message) => {
    writeFileSync(join(dir, 'other.jsonl'), '{"role":"user","content":"hi"}\n');
    const run = await runCli(['replay', ...args], { env, cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });
});
