import type { ChatRequestBody, FakeReply } from '../../fakes/fake-openai-server.js';

/**
 * A model that answers a question needing code, as a function of the request it is sent, the way a real model
 * would whatever the protocol: offered `run_code`, it calls it; offered no tools (the text protocol), it writes
 * a fenced block; once the output is back (a tool message, or the text protocol's user message), it answers
 * from it. Its thinking is sent as `reasoning`, which each server's dialect places where that server does.
 */
export const QUESTION = 'What is the sum of the squares of 1 to 100? Compute it.';
export const CODE = 'print(sum(i * i for i in range(1, 101)))';
export const RESULT = '338350';
export const ANSWER = `The sum of the squares of 1 to 100 is **${RESULT}**.`;
export const THOUGHT = 'PRIVATE-THOUGHT: the user wants a sum of squares, so I will compute it with code.';

type Message = ChatRequestBody['messages'][number];

const text = (m: Message | undefined): string =>
  typeof m?.content === 'string'
    ? m.content
    : Array.isArray(m?.content)
      ? (m.content as Array<{ type?: string; text?: string }>).map((p) => p.text ?? '').join('')
      : '';

/** Whether the code's output came back in the last message (native tool result or text-protocol results). */
export function outputReturned(body: ChatRequestBody): boolean {
  const last = body.messages.at(-1);
  if (last?.role === 'tool') return true;
  return last?.role === 'user' && text(last).includes('[Threadlab] Output of');
}

export function sumOfSquaresModel(body: ChatRequestBody): FakeReply {
  if (outputReturned(body)) {
    const output = [...body.messages].reverse().find((m) => m.role === 'tool' || m.role === 'user');
    const seen = text(output).includes(RESULT);
    return {
      kind: 'message',
      content: seen ? ANSWER : 'The code did not print the result I expected.',
      reasoning: `${THOUGHT} The output says ${RESULT}.`,
    };
  }
  if (body.tools?.length)
    return {
      kind: 'message',
      content: null,
      reasoning: THOUGHT,
      toolCalls: [{ name: 'run_code', arguments: JSON.stringify({ language: 'python', code: CODE }) }],
    };
  return { kind: 'message', content: `Let me compute it.\n\n\`\`\`python\n${CODE}\n\`\`\``, reasoning: THOUGHT };
}

/** What a clean answer never contains: markup of the protocol, thinking, internal notes, misleading advice. */
export const NEVER_SHOWN = [
  /<\/?think>/i,
  /<tool_call>/,
  /\[TOOL_CALLS\]/,
  /PRIVATE-THOUGHT/,
  /\[Threadlab\]/,
  /could not be reached/i,
  /try again/i,
  /status code \(no body\)/,
];
