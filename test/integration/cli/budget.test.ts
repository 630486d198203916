import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './cli-process.js';
import { withinOneUtcDay } from '../../support/utc-day.js';

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-budget-'));
// Two seconds of run time a day for the CLI's user; nothing else set.
const env = cliEnv(dataDir, { THREADLAB_BUDGET_USER_DAILY_RUN_SECONDS: '2' });
const chat = async (text: string) => {
  const res = await runCli(['chat', '--thread', 'budget', text], { env, cwd: dataDir });
  return { ...res, all: res.stdout + res.stderr };
};
const py = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env: cliEnv(dataDir) });
  rmSync(dataDir, { recursive: true, force: true });
});

// Daily budgets count on the real clock: the test runs inside one UTC day.
beforeAll(() => withinOneUtcDay(2 * 60_000), 200_000);

describe('daily run-time budget through threadlab chat (shipped process, real Docker)', () => {
  it('warns once at 80 %, shows what is left with /usage, then refuses with the reset time', async () => {
    const first = await chat(py('import time\ntime.sleep(1.7)\nprint("slept")'));
    expect(first.all).toContain('slept');
    expect(first.all).toMatch(/You have used (8\d|9\d|1\d\d) % of your daily code run-time budget \([\d.]+ s of 2 s\)/);
    expect(first.all).toMatch(/It resets at 00:00 UTC \(\d{4}-\d\d-\d\d\), in \d/);

    const usage = await chat('/usage');
    expect(usage.all).toMatch(/You, run time: 1\.\d s of 2 s used \(\d+ %\), 0\.\d s left/);
    expect(usage.all).toContain('Budgets reset at 00:00 UTC');

    const second = await chat(py('import time\ntime.sleep(0.6)\nprint("second")'));
    expect(second.all).toContain('second');
    expect(second.all).not.toContain('% of your daily'); // the notice came once

    const refused = await chat(py('print("must not run")'));
    expect(refused.all).not.toContain('must not run');
    expect(refused.all).toMatch(
      /You have used your daily code run-time budget \([\d.]+ s of 2 s\), so this message was not run\. It resets at 00:00 UTC/,
    );
  }, 180_000);
});
