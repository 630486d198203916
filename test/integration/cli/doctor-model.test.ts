import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer, type ChatRequestBody, type FakeReply } from '../../fakes/fake-openai-server.js';
import { cliEnv, runCli } from './cli-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'doctor-model-'));

/** A server that answers as a tool-capable model would: text, a run_code call, an answer after the result. */
function capable(body: ChatRequestBody): FakeReply {
  const last = body.messages.at(-1)!;
  if (body.tools && last.role === 'user' && String(last.content).includes('run_code'))
    return {
      kind: 'message',
      toolCalls: [{ name: 'run_code', arguments: '{"language":"python","code":"print(6 * 7)"}' }],
    };
  if (Array.isArray(last.content))
    return {
      kind: 'error',
      status: 400,
      body: { error: { message: 'Invalid content type. image_url is only supported by certain models.' } },
    };
  return { kind: 'message', content: body.tools ? '42' : 'ready' };
}

/** Ollama with a model without tool support: 400 for any request with tools. */
function noTools(body: ChatRequestBody): FakeReply {
  if (body.tools)
    return {
      kind: 'error',
      status: 400,
      body: {
        error: {
          message: 'registry.ollama.ai/library/gemma3:4b does not support tools',
          type: 'api_error',
          param: null,
          code: null,
        },
      },
    };
  return { kind: 'message', content: '<think>The user wants one word.</think>ready' };
}

describe('threadlab doctor probes the model (the CLI process against local model servers)', () => {
  const capableServer = new FakeOpenAiServer({ fallback: capable });
  const ollama = new FakeOpenAiServer({ fallback: noTools });
  beforeAll(async () => {
    await capableServer.start();
    await ollama.start();
  });
  afterAll(async () => {
    await capableServer.stop();
    await ollama.stop();
  });

  const doctor = (url: string, extra: Record<string, string> = {}) =>
    runCli(['doctor'], { env: cliEnv(dataDir, { OPENAI_BASE_URL: url, OPENAI_MODEL: 'probe-model', ...extra }) });

  it('a tool-capable model: native tool calls, a tool result round trip, images refused with the setting to change', async () => {
    const run = await doctor(capableServer.baseUrl);
    expect(run.stdout).toContain('! LLM endpoint');
    expect(run.stdout).toMatch(/text: ok \(\d+\.\d s\) · usage: reported · reasoning: none seen · images: refused/);
    expect(run.stdout).toContain('tools: native tool calls');
    expect(run.stdout).toContain('protocol: native tool calls (THREADLAB_LLM_TOOLS=auto)');
    expect(run.stdout).toContain('→ set THREADLAB_LLM_IMAGES=false');
    expect(run.code).toBe(0);
    // The round trip sent the tool result back under the call's id.
    const back = capableServer.requests.find((r) => r.body.messages.some((m) => m.role === 'tool'));
    expect(back?.body.messages.find((m) => m.role === 'tool')?.content).toContain('42');
  }, 60_000);

  it('a model whose server refuses tools: auto will use fenced code blocks; native is a blocking problem', async () => {
    const auto = await doctor(ollama.baseUrl, { THREADLAB_LLM_IMAGES: 'false' });
    expect(auto.stdout).toContain('✔ LLM endpoint');
    expect(auto.stdout).toContain('reasoning: sent (kept out of answers)');
    expect(auto.stdout).toMatch(/tools: refused by the server: .*does not support tools/);
    expect(auto.stdout).toContain('protocol: fenced code blocks (text protocol) (THREADLAB_LLM_TOOLS=auto)');
    expect(auto.code).toBe(0);
    const native = await doctor(ollama.baseUrl, { THREADLAB_LLM_IMAGES: 'false', THREADLAB_LLM_TOOLS: 'native' });
    expect(native.stdout).toContain('✘ LLM endpoint');
    expect(native.stdout).toContain('→ set THREADLAB_LLM_TOOLS=auto');
    expect(native.code).toBe(1);
  }, 60_000);

  it('no server at the URL: the line says it could not be reached and fails; --no-model sends nothing', async () => {
    const down = await doctor('http://127.0.0.1:9/v1', { THREADLAB_LLM_MAX_RETRIES: '0' });
    expect(down.stdout).toContain('✘ LLM endpoint');
    expect(down.stdout).toMatch(
      /no answer to a text request: The model server at http:\/\/127\.0\.0\.1:9\/v1 could not be reached/,
    );
    expect(down.code).toBe(1);
    const skipped = await runCli(['doctor', '--no-model'], {
      env: cliEnv(dataDir, { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }),
    });
    expect(skipped.stdout).toContain('(not probed)');
    expect(skipped.code).toBe(0);
  }, 60_000);
});
