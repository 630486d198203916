/**
 * The scripted model of the context tests (issue 37, item 7): a long thread of questions answered at length, then a
 * question whose code prints a long log; the log's tail is answered only when the model still sees both the
 * question and the end of the tool result (Ollama's silent truncation from the front loses them).
 */
import { type ChatRequestBody, fakeRunCode, fakeSay, type FakeReply } from '../../fakes/fake-openai-server.js';

export const CONTEXT_QUESTION = 'What does the log end with, and what is the total?';
/** Prints about 40,000 characters: far more than a 4k window's share for a tool result. */
export const LOG_CODE =
  'print("START\\n" + "2024-05-01 12:00:00 INFO step ok, nothing to report\\n" * 800 + "DONE total=42")';
export const LOG_OUTPUT = `START\n${'2024-05-01 12:00:00 INFO step ok, nothing to report\n'.repeat(800)}DONE total=42\n`;
export const CONTEXT_ANSWER = 'The log ends with DONE, and the total is 42.';
export const SHORTENED_LINE = "Earlier messages of this thread were shortened to fit the model's 4,096-token context.";

/** The `i`th question of the long thread, about 400 tokens. */
export const threadQuestion = (i: number): string =>
  `Question ${i}: ${'please look at the sales data again, '.repeat(40)}`;

type Message = ChatRequestBody['messages'][number];
const text = (m: Message | undefined): string => (typeof m?.content === 'string' ? m.content : '');

export function contextModel(body: ChatRequestBody): FakeReply {
  const last = body.messages.at(-1);
  const asked = body.messages.some((m) => m.role === 'user' && text(m).includes(CONTEXT_QUESTION));
  if (last?.role === 'tool') {
    return asked && text(last).includes('DONE total=42')
      ? fakeSay(CONTEXT_ANSWER)
      : fakeSay('I cannot see the question or the output any more.');
  }
  if (asked) return fakeRunCode(LOG_CODE);
  const n = /Question (\d+)/.exec(text(last))?.[1] ?? '?';
  return fakeSay(`Answer ${n}: ${'the figures are as follows, '.repeat(60)}`);
}
