import { callThenAnswer, type BehaviourFake } from './conversation.js';

/**
 * A Qwen model trained on Qwen-Agent calling `code_interpreter` (with `{"code": …}`) where the app offered another
 * code tool: Qwen-Agent registers its Python sandbox under exactly that name, with one `code` parameter, and
 * Qwen models are tuned on its transcripts.
 *
 * Reports this follows (found with the `search` tool):
 * - https://github.com/QwenLM/Qwen-Agent/blob/01a66697cebcb691f6a3c9c50009226fa2877fc7/qwen_agent/tools/code_interpreter.py
 *   — `@register_tool('code_interpreter')`, parameters `[{'name': 'code', …}]`; `call` accepts JSON or, failing
 *   that, a Markdown code block as the arguments.
 * - https://github.com/QwenLM/Qwen-Agent/pull/692 — a PR renaming that registration to `codeInterpreter` because the
 *   name `code_interpreter` collides with other tools of that name.
 * - https://github.com/QwenLM/Qwen3.8/issues/15 — Qwen3.5-Plus (through OpenRouter, in Open Interpreter) calls
 *   tools that were never defined instead of the one `execute` tool it was given.
 * - https://github.com/anomalyco/opencode/issues/1336 — Qwen3 Coder calls the unavailable tool `todo_write`
 *   (`AI_NoSuchToolError`), a tool name from its training rather than the request.
 */
export const QWEN_QUESTION = 'What is 15 factorial? Compute it.';
const CODE = 'import math\nprint(math.factorial(15))';
const RESULT = '1307674368000';

export const qwenCodeInterpreter: BehaviourFake = {
  name: 'Qwen code_interpreter tool',
  question: QWEN_QUESTION,
  mustShow: RESULT,
  behaviours: ['tool_renamed'],
  maxRequests: 2,
  runs: 1,
  model: callThenAnswer({
    question: QWEN_QUESTION,
    call: {
      kind: 'message',
      content: null,
      toolCalls: [{ name: 'code_interpreter', arguments: JSON.stringify({ code: CODE }) }],
    },
    result: RESULT,
    answer: `15! = **${RESULT}**.`,
  }),
};
