/**
 * Scripted models that behave the way real ones are publicly reported to (issue 37), one file per behaviour, each
 * citing the reports it follows: gpt-oss calling its built-in `python` tool (with JSON, or the raw source as the
 * arguments), Qwen calling `code_interpreter`, Llama 3.x writing `<|python_tag|>` and raw code, a model repeating
 * the identical failing code, a model that narrates instead of acting (once, or again after a nudge), a model that
 * ends with empty content after a successful run, and a text-protocol model writing an unlabelled fence.
 *
 * Each is a function of the request; {@link routeByQuestion} lets one FakeOpenAiServer play them all at once, each
 * thread meeting the model its question names.
 */
import type { ChatRequestBody, FakeReply, FakeStep } from '../fake-openai-server.js';
import { messageText, type BehaviourFake } from './conversation.js';
import { emptyAnswer } from './empty-answer.js';
import { gptOssPython } from './gpt-oss-python.js';
import { llamaPythonTag } from './llama-python-tag.js';
import { narration } from './narration.js';
import { qwenCodeInterpreter } from './qwen-code-interpreter.js';
import { repeatedFailure } from './repeated-failure.js';
import { unlabelledFence } from './unlabelled-fence.js';

export type { BehaviourFake } from './conversation.js';
export { LOOP_ERROR } from './repeated-failure.js';
export { emptyAnswer, gptOssPython, llamaPythonTag, narration, qwenCodeInterpreter, repeatedFailure, unlabelledFence };

/** gpt-oss calling `python` with JSON arguments. */
export const gptOssJson = gptOssPython({ rawArguments: false });
/** gpt-oss calling `python` with the source itself as the arguments. */
export const gptOssRaw = gptOssPython({ rawArguments: true });

/** The fakes that call tools (the native protocol), in the order of the list above. */
export const NATIVE_BEHAVIOURS: readonly BehaviourFake[] = [
  gptOssJson,
  gptOssRaw,
  qwenCodeInterpreter,
  llamaPythonTag,
  repeatedFailure,
  narration({ stubborn: false }),
  narration({ stubborn: true }),
  emptyAnswer,
];

/** The fakes of models without tool calling (the text protocol). */
export const TEXT_BEHAVIOURS: readonly BehaviourFake[] = [unlabelledFence];

/** A question the fakes can be routed by, with the model that answers it (a behaviour fake's, or any other). */
export interface Routed {
  question: string;
  model: (body: ChatRequestBody) => FakeReply;
}

/**
 * One model for a whole server: each request goes to the model whose question the conversation's latest user
 * question holds, so concurrent threads each meet their own behaviour. A request no question matches is answered
 * with a 500 that names the problem, as an exhausted script is.
 */
export function routeByQuestion(models: readonly Routed[]): FakeStep {
  return (body: ChatRequestBody): FakeReply => {
    const asked = body.messages.filter((m) => m.role === 'user').map(messageText);
    for (let i = asked.length - 1; i >= 0; i -= 1) {
      const routed = models.find((m) => asked[i]!.includes(m.question));
      if (routed) return routed.model(body);
    }
    return { kind: 'error', status: 500, message: 'fake: no behaviour model answers this conversation' };
  };
}
