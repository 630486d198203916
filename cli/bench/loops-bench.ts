import { OpenAiLlmClient } from '../../adapters/openai/openai-llm-client.js';
import type { Config } from '../../src/config/index.js';
import { MemoryConversationStore } from '../../src/conversations/memory-conversation-store.js';
import { Interpreter } from '../../src/interpreter/index.js';
import type { Logger } from '../../src/logger.js';
import type { Sandbox } from '../../src/ports/sandbox.js';
import { round, stats } from './bench-stats.js';
import { startLoopingModel } from './loop-model.js';

export interface LoopsBenchOptions {
  /** A sandbox of the bench's own (real Docker), closed by the caller. */
  sandbox: Sandbox;
  /** The model settings as configured (rounds, token budget, turn time): what a user's turn gets. */
  settings: Config['llm'];
  sandboxTimeoutMs: number;
  logger: Logger;
  /** Turns per side. @defaultValue 3 */
  samples: number;
  /** Time the bench's model takes per request, in ms, standing in for a real model's. @defaultValue 0 */
  modelDelayMs: number;
  out: (line: string) => void;
}

interface Side {
  requests: number[];
  tokens: number[];
  seconds: number[];
  outcome: string;
}

/**
 * `threadlab bench loops`: a model that sends the identical failing code every round, against the loop with its
 * breaker and without it (as before issue 37), side by side in one run: model requests, tokens (as the loop
 * counts them) and the turn's seconds, with the real sandbox running each round's code.
 */
export async function benchLoops(o: LoopsBenchOptions): Promise<void> {
  const model = await startLoopingModel({ delayMs: o.modelDelayMs });
  const sides: Record<'with' | 'without', Side> = {
    with: { requests: [], tokens: [], seconds: [], outcome: '' },
    without: { requests: [], tokens: [], seconds: [], outcome: '' },
  };
  try {
    const llm = new OpenAiLlmClient({
      baseUrl: model.baseUrl,
      model: 'looping-model',
      requestTimeoutMs: 30_000,
      maxRetries: 0,
      stream: false,
      images: false,
      logger: o.logger,
    });
    const make = (loopBreaker: boolean) =>
      new Interpreter({
        llm,
        sandbox: o.sandbox,
        store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
        settings: { ...o.settings, verifyFigures: 'off' },
        sandboxTimeoutMs: o.sandboxTimeoutMs,
        logger: o.logger,
        loopBreaker,
      });
    const interpreters = { with: make(true), without: make(false) };
    for (let i = 0; i < o.samples; i += 1) {
      // Alternated, so load on the machine falls on both sides alike.
      for (const side of ['without', 'with'] as const) {
        const threadKey = `cli:bench:loops:${side}-${i}-${process.pid}`;
        // The thread's container and pandas are ready before the clock starts: only the turn is timed.
        await o.sandbox.run(threadKey, { language: 'python', code: 'import pandas', internal: true });
        const before = model.requests();
        const started = performance.now();
        const result = await interpreters[side].handle({
          threadKey,
          text: 'What is the total revenue?',
          uploaded: [],
        });
        sides[side].seconds.push((performance.now() - started) / 1000);
        sides[side].requests.push(model.requests() - before);
        sides[side].tokens.push(result.usage.promptTokens + result.usage.completionTokens);
        sides[side].outcome = `${result.outcome}${result.behaviour?.includes('loop_stopped') ? ' (loop stopped)' : ''}`;
      }
    }
  } finally {
    await model.stop();
  }
  const p50 = (values: number[]) => stats(values).p50Ms;
  o.out(
    `A model sending the identical failing code (KeyError) every round; THREADLAB_LLM_MAX_ROUNDS=${o.settings.maxRounds}, ` +
      `model time ${o.modelDelayMs} ms per request, ${o.samples} turns per side (p50):`,
  );
  for (const side of ['without', 'with'] as const) {
    const s = sides[side];
    o.out(
      `  ${side === 'with' ? 'with the loop breaker   ' : 'without (before issue 37)'}  ${p50(s.requests)} model requests, ` +
        `${p50(s.tokens).toLocaleString('en')} tokens, ${round(p50(s.seconds))} s  → ${s.outcome}`,
    );
  }
  const saved = (f: (s: Side) => number[]) => 1 - p50(f(sides.with)) / p50(f(sides.without));
  o.out(
    `  saved: ${Math.round(saved((s) => s.requests) * 100)} % of the requests, ${Math.round(saved((s) => s.tokens) * 100)} % of the tokens, ` +
      `${Math.round(saved((s) => s.seconds) * 100)} % of the seconds (${round(p50(sides.without.tokens) / Math.max(1, p50(sides.with.tokens)))}× fewer tokens)`,
  );
}
