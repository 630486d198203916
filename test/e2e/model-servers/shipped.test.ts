/**
 * One variant of each model server (the most demanding one the catalogue has) driving the product as shipped:
 * `threadlab chat` (the CLI process and its daemon) and `threadlab start` (the web chat's HTTP API), with the
 * real Docker sandbox. The question needs code; the answer must be the computed one, clean. The loop test beside
 * this file covers every variant in-process, streamed and not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../fakes/fake-openai-server.js';
import { modelServer, threadlabEnv, type ModelServerEntry } from '../../fakes/model-servers/index.js';
import { cliEnv, runCli } from '../../integration/cli/cli-process.js';
import { removeContainersOf } from '../roles/containers.js';
import { stopProcess } from '../roles/processes.js';
import { startWebThreadlab } from './web-threadlab.js';
import { NEVER_SHOWN, QUESTION, RESULT, sumOfSquaresModel } from './model-script.js';
import { ollama } from '../../fakes/model-servers/index.js';
import { promptTokens } from '../../fakes/model-servers/dialect.js';
import { CONTEXT_ANSWER, CONTEXT_QUESTION, contextModel, SHORTENED_LINE, threadQuestion } from './context-script.js';

/** Per server, the variant that asks the most of the product. */
const SHIPPED = [
  'ollama-no-tools', // refuses tools: the text protocol
  'vllm-parser-mismatch', // the call comes back as <tool_call> text
  'llama-cpp-reasoning-none', // <think> in the content
  'lm-studio-unparsed', // an unparsed [TOOL_REQUEST] in the content
  'azure-2024-02-01', // api-key header, api-version, stream_options refused, an empty first chunk
  'gemini', // thought signatures required back, error arrays
  'mistral', // include_usage refused (422), no user after tool, 9-character ids
  'groq', // reasoning field, x_groq usage
  'openrouter', // processing comments in the stream
  'deepseek', // reasoning_content required back
  'openai-reasoning', // temperature and max_tokens refused
];

function expectClean(text: string): void {
  expect(text).toContain(RESULT);
  for (const never of NEVER_SHOWN) expect(text).not.toMatch(never);
}

/** Runs the two surfaces against one server: `threadlab chat`, then `threadlab start` and its web chat. */
async function driveBoth(name: string): Promise<void> {
  const entry: ModelServerEntry = modelServer(name);
  const dataDir = mkdtempSync(join(tmpdir(), `model-${name}-`));
  const server = new FakeOpenAiServer({ dialect: entry.dialect(), fallback: sumOfSquaresModel });
  await server.start();
  const env = cliEnv(dataDir, {
    ...threadlabEnv(entry, server),
    THREADLAB_LLM_TEMPERATURE: '0.2',
    THREADLAB_LLM_MAX_RETRIES: '1',
    // What is tested is the model server, not the wall around the sandbox: runc starts faster than gVisor.
    THREADLAB_SANDBOX_RUNTIME: 'runc',
  });
  try {
    const run = await runCli(['chat', '--thread', 'squares', QUESTION], { env, cwd: dataDir });
    expect(run.code, `threadlab chat against ${name}: ${run.stderr}${run.stdout}`).toBe(0);
    expectClean(run.stdout);
    await runCli(['daemon', 'stop'], { env, cwd: dataDir });

    const { process: p, web } = await startWebThreadlab({
      name: `start-${name}`,
      env: env as Record<string, string>,
      dataDir,
    });
    try {
      const thread = await web.createThread();
      const before = server.requests.length;
      await web.post(thread, { text: QUESTION });
      const reply = await web.waitForAnswer(thread, 90_000);
      expectClean(reply.text);
      // The model's code ran: its output reached the model in the requests of this turn.
      const sent = JSON.stringify(server.requests.slice(before).map((r) => r.body.messages));
      expect(sent).toContain(RESULT);
      expect(sent).toContain('range(1, 101)');
    } finally {
      await stopProcess(p, 'SIGTERM');
      await removeContainersOf([p.pid]).catch(() => undefined);
    }
  } finally {
    await runCli(['daemon', 'stop'], { env, cwd: dataDir }).catch(() => undefined);
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// Each server's processes are its own (data dir, ports, daemon): several run at once, which is what the
// file's time is mostly spent waiting on.
describe.concurrent('each model server through threadlab chat and threadlab start', () => {
  it.each(SHIPPED)('%s', (name) => driveBoth(name), 300_000);

  // Issue 37, item 7: Ollama at its default 4096-token num_ctx, which it enforces silently, through the web chat.
  it('Ollama at num_ctx 4096: a long thread and a long log still get the computed answer, shortened', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'model-context-'));
    const server = new FakeOpenAiServer({ dialect: ollama({ numCtx: 4096 }), fallback: contextModel });
    await server.start();
    const { process: p, web } = await startWebThreadlab({
      name: 'start-ollama-4k',
      env: cliEnv(dataDir, {
        OPENAI_BASE_URL: server.baseUrl,
        OPENAI_MODEL: 'qwen3:8b',
        THREADLAB_SANDBOX_RUNTIME: 'runc',
      }) as Record<string, string>,
      dataDir,
    });
    try {
      const thread = await web.createThread();
      // The nth answer of the thread, from 1.
      const answer = (n: number) => web.nthAnswer(thread, n - 1, 90_000);
      for (let i = 0; i < 6; i += 1) {
        await web.post(thread, { text: threadQuestion(i) });
        await answer(i + 1);
      }
      await web.post(thread, { text: CONTEXT_QUESTION });
      const reply = await answer(7);
      expect(reply.text).toContain(CONTEXT_ANSWER);
      const sizes = server.requests.map((r) => promptTokens(r.body));
      expect(reply.text, `prompt sizes ${sizes.join(', ')}`).toContain(SHORTENED_LINE);
      // Threadlab fitted every request: Ollama never had to drop a message.
      expect(server.requests.filter((r) => r.seen)).toHaveLength(0);
    } finally {
      await stopProcess(p, 'SIGTERM');
      await removeContainersOf([p.pid]).catch(() => undefined);
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
