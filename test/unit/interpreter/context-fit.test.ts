import { describe, expect, it } from 'vitest';
import { fitToWindow } from '../../../src/interpreter/context-fit.js';
import { estimateUsage } from '../../../src/interpreter/usage.js';
import type { LlmMessage } from '../../../src/ports/llm-client.js';

const SYSTEM: LlmMessage = { role: 'system', content: 'You are Threadlab. '.repeat(40) };
const tokens = (messages: LlmMessage[]): number => estimateUsage(messages, undefined).promptTokens;

/** A thread of `n` earlier exchanges, each about `chars` characters a message. */
function history(n: number, chars: number): LlmMessage[] {
  return Array.from({ length: n }, (_, i): LlmMessage[] => [
    { role: 'user', content: `question ${i}: ${'q'.repeat(chars)}` },
    { role: 'assistant', content: `answer ${i}: ${'a'.repeat(chars)}` },
  ]).flat();
}

function round(id: string, resultChars: number, image = false): LlmMessage[] {
  const messages: LlmMessage[] = [
    { role: 'assistant', content: null, toolCalls: [{ id, name: 'run_code', arguments: '{"code":"print(1)"}' }] },
    { role: 'tool', toolCallId: id, content: `status: ok\nstdout:\nHEAD ${'x'.repeat(resultChars)} TAIL` },
  ];
  if (image)
    messages.push({
      role: 'user',
      content: [
        { type: 'text', text: '[Threadlab] The chart image(s) your code displayed above:' },
        { type: 'image', mime: 'image/png', base64: 'iVBOR' },
      ],
    });
  return messages;
}

/** Every tool message follows an assistant message that calls it, and every call has its result. */
function pairsConsistent(messages: LlmMessage[]): boolean {
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) called.add(c.id);
    if (m.role === 'tool') {
      if (!called.has(m.toolCallId)) return false;
      answered.add(m.toolCallId);
    }
  }
  return [...called].every((id) => answered.has(id));
}

describe('fitToWindow', () => {
  it('returns messages that fit unchanged, with nothing shortened', () => {
    const messages = [SYSTEM, ...history(2, 100), { role: 'user', content: 'mean of v?' } as LlmMessage];
    const fitted = fitToWindow(messages, { windowTokens: 4096, reserveTokens: 1024 });
    expect(fitted.messages).toBe(messages);
    expect(fitted.shortened).toBeUndefined();
  });

  it('drops the oldest history first and names what the user had asked', () => {
    const question: LlmMessage = { role: 'user', content: 'And the median?' };
    const messages = [SYSTEM, ...history(20, 600), question];
    expect(tokens(messages)).toBeGreaterThan(3072);
    const fitted = fitToWindow(messages, { windowTokens: 4096, reserveTokens: 1024 });
    expect(fitted.shortened?.fits).toBe(true);
    expect(tokens(fitted.messages)).toBeLessThanOrEqual(3072);
    expect(fitted.messages[0]).toBe(SYSTEM);
    expect(fitted.messages.at(-1)).toBe(question);
    const summary = fitted.messages[1]!;
    expect(summary.role).toBe('user');
    expect(summary.content).toMatch(/^\[Threadlab\] \d+ earlier messages of this thread were left out/);
    expect(summary.content).toContain('The user had asked: “question 0:');
    // The newest exchange is kept whole; the oldest is gone.
    expect(JSON.stringify(fitted.messages)).toContain('answer 19:');
    expect(JSON.stringify(fitted.messages.slice(2))).not.toContain('question 0:');
    expect(fitted.shortened!.droppedMessages % 2).toBe(0); // kept history starts with a question
  });

  it('cuts older results head and tail, then drops their images, before touching the current round', () => {
    const question: LlmMessage = { role: 'user', content: 'Summarise the log' };
    const current = round('c2', 2000);
    const messages = [SYSTEM, question, ...round('c1', 12_000, true), ...current];
    const fitted = fitToWindow(messages, { windowTokens: 3000, reserveTokens: 512 });
    expect(fitted.shortened).toMatchObject({ cutResults: 1, droppedImages: 0, fits: true });
    const olderResult = fitted.messages[3]!;
    expect(olderResult.content).toMatch(/^status: ok\nstdout:\nHEAD x+\n\[… \d+ characters elided …\]\nx+ TAIL$/);
    // The current round is whole.
    expect(fitted.messages.slice(-2)).toEqual(current);
    expect(pairsConsistent(fitted.messages)).toBe(true);
  });

  it('drops older images when cutting results is not enough', () => {
    const question: LlmMessage = { role: 'user', content: 'Chart it' };
    const messages = [SYSTEM, question, ...round('c1', 800, true), ...round('c2', 800, true), ...round('c3', 300)];
    const budget = tokens(messages) - 900; // two images' worth of tokens must go
    const fitted = fitToWindow(messages, { windowTokens: budget + 100, reserveTokens: 100 });
    expect(fitted.shortened?.droppedImages).toBe(2);
    expect(JSON.stringify(fitted.messages)).not.toContain('iVBOR');
    expect(JSON.stringify(fitted.messages)).toContain('Chart image(s) left out');
  });

  it("cuts the current round's result but never below its floor, and says when it still does not fit", () => {
    const question: LlmMessage = { role: 'user', content: 'Print the file' };
    const messages = [SYSTEM, question, ...round('c1', 40_000)];
    const fitted = fitToWindow(messages, { windowTokens: 4096, reserveTokens: 1024 });
    expect(fitted.shortened).toMatchObject({ cutResults: 1, fits: true });
    const result = fitted.messages.at(-1)!.content as string;
    expect(result).toContain('HEAD');
    expect(result).toContain('TAIL');
    expect(tokens(fitted.messages)).toBeLessThanOrEqual(3072);

    const tiny = fitToWindow(messages, { windowTokens: 400, reserveTokens: 100, minResultChars: 600 });
    expect(tiny.shortened?.fits).toBe(false);
    expect((tiny.messages.at(-1)!.content as string).length).toBeGreaterThanOrEqual(600);
    expect(tiny.messages[0]).toBe(SYSTEM);
    expect(tiny.messages[1]).toBe(question);
  });

  it('drops whole older rounds of the turn last, keeping every call with its result', () => {
    const question: LlmMessage = { role: 'user', content: 'Go on' };
    const rounds = ['a', 'b', 'c', 'd', 'e'].flatMap((id) => round(id, 1100));
    const messages = [SYSTEM, question, ...rounds];
    const fitted = fitToWindow(messages, { windowTokens: 900, reserveTokens: 100 });
    expect(fitted.shortened!.droppedMessages).toBeGreaterThan(0);
    expect(fitted.shortened!.droppedMessages % 2).toBe(0);
    expect(pairsConsistent(fitted.messages)).toBe(true);
    expect(fitted.messages.at(-2)).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'e' }] });
  });

  it('keeps a history tool call with its results when dropping history', () => {
    const question: LlmMessage = { role: 'user', content: 'next' };
    const old: LlmMessage[] = [{ role: 'user', content: 'first '.repeat(400) }, ...round('h1', 3000)];
    const messages = [SYSTEM, ...old, ...history(2, 200), question];
    const fitted = fitToWindow(messages, { windowTokens: 1200, reserveTokens: 200 });
    expect(pairsConsistent(fitted.messages)).toBe(true);
    expect(JSON.stringify(fitted.messages)).not.toContain('"h1"');
  });

  it('does not change its input', () => {
    const messages = [SYSTEM, { role: 'user', content: 'q' } as LlmMessage, ...round('c1', 40_000, true)];
    const copy = structuredClone(messages);
    fitToWindow(messages, { windowTokens: 2000, reserveTokens: 500 });
    expect(messages).toEqual(copy);
  });
});
