/**
 * Record and replay (issue 37, item 8) as shipped: `threadlab chat` with THREADLAB_LLM_RECORD against the fake model
 * servers writes each turn's exchange (the key nowhere in it, file previews left out), and `threadlab replay` plays a
 * recording back against today's code with the real Docker sandbox: the same requests exit 0, a changed one exits 1
 * naming the difference. The recordings under test/recordings/ were made by this file (run it with
 * THREADLAB_WRITE_RECORDINGS=1 to make them again, after a change to what Threadlab sends that is meant) and each
 * must replay with no difference.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { modelServer, threadlabEnv } from '../../fakes/model-servers/index.js';
import { cliEnv, runCli } from '../../integration/cli/cli-process.js';
import { QUESTION, RESULT, sumOfSquaresModel } from './model-script.js';

const RECORDINGS = fileURLToPath(new URL('../../recordings/', import.meta.url));
/** The key of servers that take any: it must appear in no recording. */
const TEST_KEY = 'sk-threadlab-record-test-5e1f0c2a9b';

/** What each shipped recording is of: a server variant, and whether it streamed. */
const SHIPPED: Array<{ variant: string; stream: boolean }> = [
  { variant: 'ollama-no-tools', stream: true }, // refuses tools: the text protocol
  { variant: 'vllm-parser-mismatch', stream: true }, // the call comes back as <tool_call> text
  { variant: 'azure-2024-02-01', stream: true }, // api-key header, stream_options refused
  { variant: 'gemini', stream: true }, // thought signatures sent back
  { variant: 'mistral', stream: true }, // include_usage refused (422)
  { variant: 'openai-reasoning', stream: false }, // temperature and max_tokens refused, whole responses
];

interface RecordedTurn {
  dir: string;
  files: string[];
  key: string;
  stdout: string;
  cleanup: () => Promise<void>;
}

/** Runs `threadlab chat` once against a fake of `variant` with THREADLAB_LLM_RECORD, and returns what it wrote. */
async function recordTurn(
  variant: string,
  o: { stream: boolean; attach?: string; extraEnv?: Record<string, string> },
): Promise<RecordedTurn> {
  const entry = modelServer(variant);
  const dir = mkdtempSync(join(tmpdir(), `record-${variant}-`));
  const server = new FakeOpenAiServer({ dialect: entry.dialect(), fallback: sumOfSquaresModel });
  await server.start();
  const key = entry.threadlab.apiKey ?? TEST_KEY;
  const env = cliEnv(join(dir, 'data'), {
    OPENAI_API_KEY: key,
    ...threadlabEnv(entry, server),
    THREADLAB_LLM_STREAM: String(o.stream),
    THREADLAB_LLM_TEMPERATURE: '0.2',
    THREADLAB_LLM_MAX_RETRIES: '1',
    THREADLAB_SANDBOX_RUNTIME: 'runc',
    THREADLAB_LLM_RECORD: join(dir, 'rec'),
    ...o.extraEnv,
  });
  const cleanup = async (): Promise<void> => {
    await runCli(['daemon', 'stop'], { env, cwd: dir }).catch(() => undefined);
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const args = ['chat', '--thread', 'rec', ...(o.attach ? ['--attach', o.attach] : []), QUESTION];
    const run = await runCli(args, { env, cwd: dir });
    expect(run.code, `${variant}: ${run.stderr}${run.stdout}`).toBe(0);
    await runCli(['daemon', 'stop'], { env, cwd: dir });
    const files = readdirSync(join(dir, 'rec')).map((f) => join(dir, 'rec', f));
    return { dir, files, key, stdout: run.stdout, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

function replayEnv(dir: string): Record<string, string | undefined> {
  return cliEnv(join(dir, 'replay-data'), { THREADLAB_SANDBOX_RUNTIME: 'runc' });
}

describe.concurrent('threadlab replay', () => {
  it('records a turn with the key and the uploaded data nowhere, and replays it the same; a changed request differs', async () => {
    const data = mkdtempSync(join(tmpdir(), 'record-upload-'));
    const csv = join(data, 'payroll.csv');
    writeFileSync(csv, 'name,salary\nAlice-Confidential,123456\nBob,654321\n');
    const withUpload = await recordTurn('azure-2024-02-01', { stream: true, attach: csv });
    const plain = await recordTurn('azure-2024-02-01', { stream: true });
    try {
      // One file per turn; the key (Azure's api-key header) is in none of them, nor the uploaded rows.
      expect(withUpload.files).toHaveLength(1);
      expect(plain.files).toHaveLength(1);
      for (const file of [...withUpload.files, ...plain.files]) {
        const text = readFileSync(file, 'utf8');
        expect(text).not.toContain(withUpload.key);
        expect(text).toContain('"api-key":"[REDACTED]"');
      }
      const uploaded = readFileSync(withUpload.files[0]!, 'utf8');
      expect(uploaded).toContain('payroll.csv');
      expect(uploaded).not.toContain('Alice-Confidential');
      expect(uploaded).toContain('[preview left out of the recording');
      expect(uploaded).toContain(RESULT);

      const same = await runCli(['replay', plain.files[0]!], { env: replayEnv(plain.dir), cwd: plain.dir });
      expect(same.code, same.stderr + same.stdout).toBe(0);
      expect(same.stdout).toContain('Same: every request today is the one recorded.');
      expect(same.stdout).toContain(RESULT);

      // The recorded tool result said another number: today's second request differs there.
      const changed = join(plain.dir, 'changed.jsonl');
      const lines = readFileSync(plain.files[0]!, 'utf8').split('\n');
      const at = lines.findIndex((l) => l.startsWith('{"type":"request"') && l.includes(RESULT));
      expect(at).toBeGreaterThan(0);
      lines[at] = lines[at]!.replaceAll(RESULT, '338351');
      writeFileSync(changed, lines.join('\n'));
      const differs = await runCli(['replay', changed], { env: replayEnv(plain.dir), cwd: plain.dir });
      expect(differs.code, differs.stderr + differs.stdout).toBe(1);
      expect(differs.stdout).toMatch(/Request \d+ differs from the recording:/);
      expect(differs.stdout).toMatch(/~ \[\d+\] tool \(changed\) from character \d+: recorded "[^"]*338351/);
    } finally {
      await withUpload.cleanup();
      await plain.cleanup();
      rmSync(data, { recursive: true, force: true });
    }
  }, 300_000);

  const shipped = readdirSync(RECORDINGS).filter((f) => f.endsWith('.jsonl'));
  it('ships a recording of each chosen server', () => {
    expect(shipped.sort()).toEqual(SHIPPED.map((s) => `${s.variant}${s.stream ? '' : '-whole'}.jsonl`).sort());
  });

  it.each(shipped)(
    '%s replays with no difference',
    async (name) => {
      const dir = mkdtempSync(join(tmpdir(), 'replay-shipped-'));
      try {
        const run = await runCli(['replay', join(RECORDINGS, name)], { env: replayEnv(dir), cwd: dir });
        expect(run.code, run.stderr + run.stdout).toBe(0);
        expect(run.stdout).toContain(RESULT);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    300_000,
  );

  it.runIf(process.env.THREADLAB_WRITE_RECORDINGS === '1').each(SHIPPED)(
    'writes test/recordings/ from $variant',
    async ({ variant, stream }) => {
      const turn = await recordTurn(variant, { stream });
      try {
        expect(turn.files).toHaveLength(1);
        expect(readFileSync(turn.files[0]!, 'utf8')).not.toContain(turn.key);
        copyFileSync(turn.files[0]!, join(RECORDINGS, `${variant}${stream ? '' : '-whole'}.jsonl`));
      } finally {
        await turn.cleanup();
      }
    },
    300_000,
  );
});
