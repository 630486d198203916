/**
 * Verified answers in `threadlab chat` (the CLI process and its daemon, a scripted model, the real sandbox):
 * the figures line is printed between the answer and its footer, and `--json` carries the check.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { cliEnv, runCli } from '../../integration/cli/cli-process.js';
import { expectRounds, scriptFound, scriptInsisting } from './figure-scenarios.js';

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-figures-'));
const llm = new FakeOpenAiServer();
let env: Record<string, string | undefined>;
const chat = (args: string[]) => runCli(['chat', ...args], { env, cwd: dataDir });

beforeAll(async () => {
  await llm.start();
  env = cliEnv(dataDir, {
    OPENAI_API_KEY: 'sk-cli-figures-0000000000000000',
    OPENAI_BASE_URL: llm.baseUrl,
    OPENAI_MODEL: 'fake-gpt',
    THREADLAB_LLM_STREAM: 'false',
    THREADLAB_LLM_MAX_RETRIES: '0',
  });
});

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env, cwd: dataDir }).catch(() => undefined);
  await llm.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('threadlab chat prints the check of the answer’s figures', () => {
  it('(a) figures found in run output: the ✓ line between the answer and the footer', async () => {
    const turn = scriptFound(llm, 'cli found');
    const res = await chat(['--thread', 'found', 'how did revenue do?']);
    expect(res.code, res.stderr).toBe(0);
    const parts = res.stdout.trimEnd().split('\n\n');
    expect(parts[0]).toBe(turn.answer);
    expect(parts.at(-2)).toBe(turn.line);
    expect(parts.at(-1)).toMatch(/^— .* · 1 run/);
    expectRounds(llm, turn, 0);
  });

  it('(c) a model that insists: --json carries the ⚠ line and the figure not found', async () => {
    const turn = scriptInsisting(llm, 'cli insists');
    const res = await chat(['--thread', 'insists', '--json', 'how did revenue do?']);
    expect(res.code, res.stderr).toBe(0);
    const reply = JSON.parse(res.stdout) as { text: string; figures?: unknown };
    expect(reply.text).toBe(turn.answer);
    expect(reply.figures).toEqual({ checked: 2, notFound: 1, notFoundTexts: ['12.4 %'], line: turn.line });
    expectRounds(llm, turn, 1);
  });
});
