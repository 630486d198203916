import { callThenAnswer, type BehaviourFake } from './conversation.js';

/**
 * gpt-oss calling its built-in `python` tool instead of the tool it was offered. The harmony format trains the model
 * on a stateful `python` tool whose message body is the source itself, so the call comes out named `python`, with
 * JSON (`{"code": …}`) when the server's parser wraps it, or with the raw source where the arguments belong.
 *
 * Reports this follows (found with the `search` tool):
 * - https://github.com/odysseus-dev/odysseus/issues/5877 — gpt-oss treats an app's `python` tool as its own built-in
 *   one and "calls it with raw code instead of JSON arguments"; through Ollama 0.32.5 only 2 of 12 runs made a
 *   valid call until the name was aliased.
 * - https://github.com/continuedev/continue/issues/10221 — gpt-oss 20B through Ollama: `error parsing tool call:
 *   raw='ls -R\n'`, a shell command where the JSON arguments belong.
 * - https://github.com/ollama/ollama/issues/11704 — gpt-oss 120B malformed tool calls ("invalid character 'c'
 *   looking for beginning of value"), labelled harmony and tools.
 * - https://github.com/vllm-project/vllm/issues/23108 — vLLM serving gpt-oss-20b with its built-in python tool
 *   (`--tool-server demo`): the model's python calls are a server-side feature, not the app's function.
 * - https://github.com/avante-corp/avante.nvim/pull/1901 — OpenAI reserves the function name `python` for the
 *   o-series' built-in code interpreter ("The function name 'python' is reserved for use by this model").
 * What the user meets depends on the server: Ollama answers 500 (the reports above); vLLM's tool parser fails to read
 * the arguments and returns the whole call as `<tool_call>` text content (test/fakes/model-servers/vllm.ts); a proxy
 * that passes the call through gives `arguments` that are not JSON. Not confirmed: which servers do the last.
 */
export function gptOssPython(options: { rawArguments: boolean }): BehaviourFake {
  const question = options.rawArguments
    ? 'What is 2 to the power of 64? Compute it exactly.'
    : 'What is the sum of the cubes of 1 to 20? Compute it.';
  const code = options.rawArguments ? 'print(2 ** 64)' : 'print(sum(i ** 3 for i in range(1, 21)))';
  const result = options.rawArguments ? '18446744073709551616' : '44100';
  const answer = options.rawArguments
    ? `2 to the power of 64 is **${result}**.`
    : `The sum of the cubes of 1 to 20 is **${result}**.`;
  return {
    name: options.rawArguments ? 'gpt-oss python tool, raw code as arguments' : 'gpt-oss python tool, JSON arguments',
    question,
    mustShow: result,
    behaviours: options.rawArguments ? ['tool_renamed', 'raw_arguments'] : ['tool_renamed'],
    maxRequests: 2,
    runs: 1,
    model: callThenAnswer({
      question,
      call: {
        kind: 'message',
        content: null,
        reasoning: 'The user wants an exact number; I will use the python tool.',
        toolCalls: [{ name: 'python', arguments: options.rawArguments ? code : JSON.stringify({ code }) }],
      },
      result,
      answer,
    }),
  };
}
