import { describe, expect, it } from 'vitest';
import { ThreadlabError } from '../../../src/domain/errors.js';
import { estimateUsage } from '../../../src/interpreter/usage.js';
import { answer, runCode, ScriptedLlm, type ScriptedLlmOptions } from '../../fakes/scripted-llm.js';
import { input, rig } from './helpers.js';

/** A scripted model whose server states a context window. */
class WindowedLlm extends ScriptedLlm {
  probes = 0;
  constructor(
    private readonly window: number | undefined,
    options: ScriptedLlmOptions = {},
  ) {
    super(options);
  }
  contextWindow(): Promise<number | undefined> {
    this.probes += 1;
    return Promise.resolve(this.window);
  }
}

const tokensOf = (messages: Parameters<typeof estimateUsage>[0]): number =>
  estimateUsage(messages, undefined).promptTokens;

/** A context-length refusal as map-error makes it from vLLM's words. */
function refusal(windowTokens: number, promptTokens: number): ThreadlabError {
  return new ThreadlabError(
    'llm_context_exceeded',
    `The model server refused the request as too long for the model's context (400): "This model's maximum context length is ${windowTokens} tokens. However, your request has ${promptTokens} input tokens." Raise the server's context window.`,
    { isPolicy: true, details: { windowTokens, promptTokens } },
  );
}

/** Fills a thread with `n` exchanges of long questions and answers. */
async function longThread(r: ReturnType<typeof rig>, llm: ScriptedLlm, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    llm.push(answer(`Answer ${i}: ${'a'.repeat(1500)}`));
    await r.interpreter.handle(input(`Question ${i}: ${'q'.repeat(1500)}`), {});
  }
}

describe('Interpreter loop in a small context window', () => {
  it('shortens a long thread and a big tool result to the window the server states, and says so', async () => {
    const llm = new WindowedLlm(4096);
    const r = rig({ llm });
    await longThread(r, llm, 6);
    llm.push(runCode('print(open("big.log").read())'), answer('The log ends with DONE; the total is 42.'));
    r.sandbox.enqueue({ stdout: `START ${'line of log\n'.repeat(2000)} DONE total=42\n` });
    const before = llm.requests.length;
    const result = await r.interpreter.handle(input('What does the log end with?'), {});

    expect(result.outcome).toBe('answer');
    expect(result.text).toContain('the total is 42');
    expect(result.text).toMatch(
      /Earlier messages of this thread were shortened to fit the model's 4,096-token context\.$/,
    );
    expect(result.behaviour).toContain('context_shortened');
    for (const request of llm.requests.slice(before)) {
      expect(tokensOf(request.messages)).toBeLessThanOrEqual(Math.floor(4096 * 0.9) - 921);
      expect(request.messages[0]!.role).toBe('system');
    }
    const last = llm.requests.at(-1)!.messages;
    const toolResult = last.find((m) => m.role === 'tool')!.content as string;
    expect(toolResult).toContain('START');
    expect(toolResult).toContain('DONE total=42');
    expect(toolResult).toMatch(/characters elided/);
    expect(last.find((m) => m.role === 'user' && m.content === 'What does the log end with?')).toBeDefined();
    expect(llm.probes).toBe(7); // asked once per turn (the client caches its answer)
  });

  it('leaves a thread that fits alone: no note, nothing shortened', async () => {
    const llm = new WindowedLlm(32_768, { steps: [answer('Four.')] });
    const r = rig({ llm });
    const result = await r.interpreter.handle(input('2 + 2?'), {});
    expect(result.text).toBe('Four.');
    expect(result.behaviour ?? []).not.toContain('context_shortened');
  });

  it('THREADLAB_LLM_CONTEXT_TOKENS is used instead of asking the server', async () => {
    const llm = new WindowedLlm(1_000_000);
    const r = rig({ llm, settings: { contextTokens: 2048 } });
    await longThread(r, llm, 3);
    llm.push(answer('Done.'));
    const result = await r.interpreter.handle(input('And now?'), {});
    expect(llm.probes).toBe(0);
    expect(result.text).toContain('2,048-token context');
    expect(tokensOf(llm.requests.at(-1)!.messages)).toBeLessThanOrEqual(2048);
  });

  it('retries a context refusal once, fitted to the window it names, and answers', async () => {
    const llm = new WindowedLlm(undefined);
    const r = rig({ llm });
    await longThread(r, llm, 6);
    const sizes: number[] = [];
    llm.push(
      (request) => {
        sizes.push(tokensOf(request.messages));
        // The server counts a third more than the estimate.
        return refusal(4096, Math.ceil(tokensOf(request.messages) * 1.33));
      },
      (request) => {
        sizes.push(tokensOf(request.messages));
        return answer('The median is 7.');
      },
    );
    const result = await r.interpreter.handle(input('And the median?'), {});
    expect(result.outcome).toBe('answer');
    expect(result.text).toContain('The median is 7.');
    expect(result.text).toContain("shortened to fit the model's 4,096-token context");
    expect(result.behaviour).toContain('context_shortened');
    expect(result.behaviour).not.toContain('context_refused');
    // The retry, counted as the server counts, fits its window.
    expect(sizes[1]! * 1.33).toBeLessThanOrEqual(4096);
    expect(sizes[1]!).toBeLessThan(sizes[0]!);
  });

  it('retries a refusal that names no sizes with a fraction of what was sent', async () => {
    const llm = new WindowedLlm(undefined);
    const r = rig({ llm });
    await longThread(r, llm, 6);
    const sizes: number[] = [];
    const bare = new ThreadlabError('llm_context_exceeded', 'the request exceeds the available context size', {
      isPolicy: true,
    });
    llm.push(
      (request) => (sizes.push(tokensOf(request.messages)), bare),
      (request) => (sizes.push(tokensOf(request.messages)), answer('Yes.')),
    );
    const result = await r.interpreter.handle(input('Still there?'), {});
    expect(result.text).toContain('Yes.');
    expect(sizes[1]!).toBeLessThanOrEqual(sizes[0]! * 0.6);
  });

  it('ends the turn with the advice when the shortened request is refused too', async () => {
    const llm = new WindowedLlm(undefined);
    const r = rig({ llm });
    await longThread(r, llm, 4);
    llm.push(refusal(1024, 5000), refusal(1024, 3000));
    const result = await r.interpreter.handle(input('Once more?'), {});
    expect(result.outcome).toBe('failed');
    expect(result.text).toContain("The language model's server refused the request");
    expect(result.text).toContain("Raise the server's context window");
    expect(result.text).not.toContain('shortened to fit');
    expect(result.behaviour).toEqual(expect.arrayContaining(['context_shortened', 'context_refused']));
    expect(llm.remaining).toBe(0);
  });
});
