import type { ChatRequestBody, FakeReply } from '../fake-openai-server.js';
import { outputsOf, type BehaviourFake } from './conversation.js';

/**
 * A model that runs the code well and then ends the turn with `content: ""` (no text, no call), and again when
 * told its reply was empty: the result was computed, but the model never says it.
 *
 * Reports this follows (found with the `search` tool):
 * - https://github.com/ollama/ollama/issues/10899 — qwen2.5-coder, llama3.1 and devstral through Ollama "always" answer
 *   `"content": ""` when called with tools.
 * - https://github.com/NousResearch/hermes-agent/pull/6267 — "Models frequently produce empty responses after
 *   completing tool calls … resulting in `(empty)` being delivered to the user"; one nudge, then a fallback.
 * - https://github.com/HolmesGPT/holmesgpt/issues/2185 — the final answer is lost when the closing turn is empty
 *   (`content=None` / `""`, no tool calls) after tools ran.
 * - https://github.com/infiniflow/ragflow/pull/19872 — after tool calls a provider returns no calls and content
 *   `None`, empty or whitespace.
 * - https://github.com/vllm-project/vllm/issues/45736 — vLLM serving gpt-oss returns `content: null` with
 *   `finish_reason: "stop"` when its harmony parser ends in a non-terminal state.
 */
export const EMPTY_QUESTION = 'How many prime numbers are there below 1000? Compute it.';
const CODE = 'print(sum(all(n % d for d in range(2, int(n ** 0.5) + 1)) for n in range(2, 1000)))';

export const emptyAnswer: BehaviourFake = {
  name: 'empty content after a successful run',
  question: EMPTY_QUESTION,
  mustShow: '168',
  behaviours: ['empty_answer'],
  // The call, the empty reply, the empty reply to the one nudge.
  maxRequests: 3,
  runs: 1,
  model: (body: ChatRequestBody): FakeReply => {
    if (outputsOf(body, EMPTY_QUESTION) !== undefined) return { kind: 'message', content: '', finishReason: 'stop' };
    return {
      kind: 'message',
      content: '',
      toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ language: 'python', code: CODE }) }],
    };
  },
};
