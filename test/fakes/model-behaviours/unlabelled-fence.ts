import type { ChatRequestBody, FakeReply } from '../fake-openai-server.js';
import { outputsOf, type BehaviourFake } from './conversation.js';

/**
 * A model without tool calling (the text protocol) that writes its code in a fence with no language tag, then
 * answers with the output in another untagged fence: the first is code to run, the second is data to show.
 *
 * Reports this follows (found with the `search` tool):
 * - https://github.com/microsoft/autogen/issues/4063 — in AutoGen's quick start "the code executor gets 2 code blocks,
 *   the first of which fails to execute because it has no language tagged on it".
 * - https://github.com/openinterpreter/openinterpreter/issues/340 — "the language is missing from the code block and
 *   the default is python", so shell commands ran as Python; the model could not be made to tag them reliably.
 * - https://github.com/openinterpreter/openinterpreter/issues/163 — Llama 7B writes bash that is run as Python.
 * - https://github.com/openinterpreter/openinterpreter/issues/1579 — "there are often cases where code is written as a
 *   `message` and the code is not executed".
 * - https://github.com/gptme/gptme/issues/67 — models put examples (not meant to run) in code blocks too, so an
 *   executor must tell runnable code from the rest.
 */
export const FENCE_QUESTION = 'What is the sum of the even numbers from 1 to 1000? Compute it.';
const CODE = 'total = sum(n for n in range(1, 1001) if n % 2 == 0)\nprint(total)';
const RESULT = '250500';

export const unlabelledFence: BehaviourFake = {
  name: 'text protocol, an unlabelled fence',
  question: FENCE_QUESTION,
  mustShow: RESULT,
  behaviours: [],
  maxRequests: 2,
  runs: 1,
  model: (body: ChatRequestBody): FakeReply => {
    const output = outputsOf(body, FENCE_QUESTION);
    if (output === undefined)
      return { kind: 'message', content: `I'll add them up in Python:\n\n\`\`\`\n${CODE}\n\`\`\`` };
    if (!output.includes(RESULT)) return { kind: 'message', content: 'The code did not print the result I expected.' };
    // Output in an untagged fence: data shown to the reader, never run.
    const table = `\`\`\`\neven numbers   total\n2 to 1000      ${RESULT}\n\`\`\``;
    return { kind: 'message', content: `The sum of the even numbers from 1 to 1000 is **${RESULT}**.\n\n${table}` };
  },
};
