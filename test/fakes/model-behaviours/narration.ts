import type { ChatRequestBody, FakeReply } from '../fake-openai-server.js';
import { alreadySaid, answerFrom, outputsOf, type BehaviourFake } from './conversation.js';

/**
 * A model that announces the work ("I'll calculate the mean of column v using pandas.") and stops, with
 * `finish_reason: stop` and no call. Told once to go on, a recovering model then calls the tool; a stubborn one
 * announces again, and its words are all the user can be given.
 *
 * Reports this follows (found with the `search` tool):
 * - https://github.com/shenjianan97/persistent-agent-runtime/issues/97 — gpt-5.2-codex ends a task with "I'll
 *   review the underlying articles directly…" and `tool_calls: []`; the ReAct rule "no tool calls ≡ final answer"
 *   cannot tell that from an answer.
 * - https://github.com/Classla/ClasslaV2/issues/238 — "Model says 'I'll add a question...' then stops without
 *   making tool calls."
 * - https://github.com/cline/cline/pull/11901 — a one-shot nudge for no-tool turns that describe an action ("I'll
 *   run the tests now"); "a stubborn model can still stop after the one retry".
 * - https://github.com/getkimchi/kimchi/pull/472 — a harness that sent one hidden nudge after "let me do X" with no
 *   tool call, then gave up.
 * - https://github.com/QwenLM/Qwen3-Coder/issues/180 — qwen2.5-coder offered an `execute_python` tool answers with
 *   `finish_reason: "stop"` and no `tool_calls`.
 */
export function narration(options: { stubborn: boolean }): BehaviourFake {
  const question = options.stubborn
    ? 'What is the median of column w in the table w = 4, 8, 15, 16, 23, 42? Use pandas.'
    : 'What is the mean of column v in the table v = 2, 4, 9, 13? Use pandas.';
  const announcement = options.stubborn
    ? "I'll calculate the median of column w using pandas."
    : "I'll calculate the mean of column v using pandas.";
  const code = 'import pandas as pd\ndf = pd.DataFrame({"v": [2, 4, 9, 13]})\nprint(df["v"].mean())';
  return {
    name: options.stubborn ? 'narration, again after the nudge' : 'narration, then the call after the nudge',
    question,
    // The stubborn model's announcement is posted: the user learns what it meant to do, not a made-up result.
    mustShow: options.stubborn ? announcement : '7.0',
    behaviours: options.stubborn ? ['narration', 'narration_posted'] : ['narration'],
    maxRequests: options.stubborn ? 2 : 3,
    runs: options.stubborn ? 0 : 1,
    model: (body: ChatRequestBody): FakeReply => {
      const output = outputsOf(body, question);
      if (output !== undefined)
        return answerFrom(output, { result: '7.0', answer: 'The mean of column v is **7.0**.' });
      if (options.stubborn || !alreadySaid(body, question, announcement))
        return { kind: 'message', content: announcement, finishReason: 'stop' };
      return {
        kind: 'message',
        content: null,
        toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ language: 'python', code }) }],
      };
    },
  };
}
