import type { ChatRequestBody, FakeReply } from '../fake-openai-server.js';
import type { ModelBehaviour } from '../../../src/domain/model-behaviour.js';

/**
 * What the behaviour fakes read from a request: the turn that follows the user's question, and the output of the
 * code that came back in it (a native tool message, or the text protocol's `[Threadlab] Output of…` user message).
 * A fake answers from that output only, so its answer holds the result only when the code really ran.
 */

type Message = ChatRequestBody['messages'][number];

/** A message's text, whether its content is a string or a list of parts. */
export function messageText(m: Message | undefined): string {
  if (typeof m?.content === 'string') return m.content;
  if (!Array.isArray(m?.content)) return '';
  return (m.content as Array<{ text?: string }>).map((p) => p.text ?? '').join('');
}

/** The messages after the last user message that asked `question` (the whole request when none did). */
export function turnOf(body: ChatRequestBody, question: string): Message[] {
  const messages = body.messages;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i]!;
    if (m.role === 'user' && messageText(m).includes(question)) return messages.slice(i + 1);
  }
  return messages;
}

const isOutput = (m: Message): boolean =>
  m.role === 'tool' || (m.role === 'user' && messageText(m).startsWith('[Threadlab] Output of'));

/** The output of this turn's runs so far, in order, or undefined when none came back yet. */
export function outputsOf(body: ChatRequestBody, question: string): string | undefined {
  const outputs = turnOf(body, question).filter(isOutput);
  return outputs.length ? outputs.map(messageText).join('\n') : undefined;
}

/** Whether the last message of the request is a run's output: the model's next words are about it. */
export function outputJustReturned(body: ChatRequestBody): boolean {
  const last = body.messages.at(-1);
  return last !== undefined && isOutput(last);
}

/** Whether the model already said `text` in this turn (a nudge followed it). */
export function alreadySaid(body: ChatRequestBody, question: string, text: string): boolean {
  return turnOf(body, question).some((m) => m.role === 'assistant' && messageText(m).includes(text));
}

/** Whether tools were offered: the native protocol, as opposed to the text protocol. */
export const toolsOffered = (body: ChatRequestBody): boolean => (body.tools?.length ?? 0) > 0;

/** The final answer of a fake once its code ran: `answer` when the output holds `result`, an honest miss otherwise. */
export function answerFrom(output: string, expected: { result: string; answer: string }): FakeReply {
  return {
    kind: 'message',
    content: output.includes(expected.result) ? expected.answer : 'The code did not print the result I expected.',
  };
}

/** A model that asks for its code with `call` until the output comes back, then answers from it. */
export function callThenAnswer(o: {
  question: string;
  call: FakeReply;
  result: string;
  answer: string;
}): (body: ChatRequestBody) => FakeReply {
  return (body) => {
    const output = outputsOf(body, o.question);
    return output === undefined ? o.call : answerFrom(output, o);
  };
}

/**
 * A model that behaves one way real models are reported to, as a function of the request (a `FakeStep` of
 * test/fakes/fake-openai-server.ts), with the question that triggers it and what the user must get.
 */
export interface BehaviourFake {
  /** A short name for test titles. */
  name: string;
  /** The user's question; {@link routeByQuestion} sends a request to the fake whose question it holds. */
  question: string;
  /**
   * What the user's reply must contain: the computed result, or for a model that cannot succeed the words that
   * say what happened (the repeated error).
   */
  mustShow: string;
  /** What the loop should record on the turn (TurnResult.behaviour), in any order. */
  behaviours: ModelBehaviour[];
  /** Most model requests the turn may take. */
  maxRequests: number;
  /** Sandbox runs the turn makes: the code once (none when the model never asks; the loop: each repeat). */
  runs: number;
  model: (body: ChatRequestBody) => FakeReply;
}
