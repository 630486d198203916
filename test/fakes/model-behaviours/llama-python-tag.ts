import { callThenAnswer, type BehaviourFake } from './conversation.js';

/**
 * Llama 3.x writing its built-in code interpreter call: `<|python_tag|>` followed by raw Python (not JSON) in the
 * content, ending the message there (`<|eom_id|>`, which the server does not show). A server without a Llama tool
 * parser for it (vLLM's `llama3_json` expects JSON after the tag) passes the text on as the content, with
 * `finish_reason: stop` and no tool call.
 *
 * Reports this follows (found with the `search` tool):
 * - https://craftwithcodewiz.com/category/generative-ai — quotes Meta's Llama 3.1 prompt format: with
 *   `Environment: ipython` the model's response is `<|python_tag|>` + Python source, terminated with `<|eom_id|>`;
 *   "the model itself does not execute the code output".
 * - https://juejin.cn/post/7519481236424982564 — the Llama 3.1 special tokens: `<|python_tag|>` marks a tool call
 *   in the response, `<|eom_id|>` ends a message that expects a tool result, `ipython` is the tool role.
 * - https://github.com/meta-llama/llama-models/pull/283 — Meta stopped writing `<|python_tag|>` before
 *   non-code-interpreter calls because it "misleads the model into outputing <python_tag> for custom tool calls".
 * - https://github.com/vllm-project/vllm/issues/16214 — with `--tool-call-parser llama3_json` some turns come back
 *   as text content (`<|python_start|>{…}<|python_end|>`) rather than as tool calls.
 */
export const LLAMA_QUESTION = 'What is the 30th Fibonacci number? Compute it.';
const CODE = 'a, b = 0, 1\nfor _ in range(30):\n    a, b = b, a + b\nprint(a)';
const RESULT = '832040';

export const llamaPythonTag: BehaviourFake = {
  name: 'Llama <|python_tag|> with raw code',
  question: LLAMA_QUESTION,
  mustShow: RESULT,
  behaviours: ['tool_renamed', 'raw_arguments'],
  maxRequests: 2,
  runs: 1,
  model: callThenAnswer({
    question: LLAMA_QUESTION,
    call: { kind: 'message', content: `<|python_tag|>${CODE}`, finishReason: 'stop' },
    result: RESULT,
    answer: `The 30th Fibonacci number is **${RESULT}**.`,
  }),
};
