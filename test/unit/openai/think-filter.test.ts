import { describe, expect, it } from 'vitest';
import { splitThinking, ThinkFilter } from '../../../adapters/openai/think-filter.js';

/** Streams `text` in pieces of `size` characters; returns what a user would have seen live. */
function stream(text: string, size: number, startsInside = false): { live: string; filter: ThinkFilter } {
  const filter = new ThinkFilter(startsInside);
  let live = '';
  for (let i = 0; i < text.length; i += size) live += filter.push(text.slice(i, i + size));
  live += filter.end();
  return { live, filter };
}

describe('ThinkFilter', () => {
  const content = '<think>\nThe user wants the mean. Let me compute 12.3 first.\n</think>\n\nThe mean is **12.35**.';

  it.each([1, 2, 3, 5, 7, 64])('never shows thinking, whatever the delta size (%i chars)', (size) => {
    const { live, filter } = stream(content, size);
    expect(live).toBe('The mean is **12.35**.');
    expect(filter.answer).toBe('The mean is **12.35**.');
    expect(filter.reasoning).toBe('The user wants the mean. Let me compute 12.3 first.');
  });

  it('takes out <thinking> blocks and several blocks, case-insensitively', () => {
    const { answer, reasoning } = splitThinking('<Thinking>a</Thinking>First. <think>b</think>Second.');
    expect(answer).toBe('First. Second.');
    expect(reasoning).toBe('ab');
  });

  it('content that starts inside a block the template opened: everything before the lone </think> is thinking', () => {
    const { answer, reasoning, loneClose } = splitThinking('Okay, compute it.\n</think>\nIt is 4.');
    expect(answer).toBe('It is 4.');
    expect(reasoning).toBe('Okay, compute it.');
    expect(loneClose).toBe(true);
  });

  it('once learned that the template opens the block, nothing before </think> is streamed', () => {
    const { live } = stream('Let me think about 2+2.</think>It is 4.', 3, true);
    expect(live).toBe('It is 4.');
  });

  it('a learned open block that never closes was no thinking at all: the whole content is the answer', () => {
    const { live, filter } = stream('It is 4.', 3, true);
    expect(live).toBe('It is 4.');
    expect(filter.reasoning).toBe('');
  });

  it('an explicit block cut off by the length limit stays hidden', () => {
    expect(splitThinking('<think>still going').answer).toBe('');
  });

  it('text that only looks like the start of a tag is shown', () => {
    expect(stream('a < b and x <th', 2).live).toBe('a < b and x <th');
    expect(splitThinking('Use <table> here').answer).toBe('Use <table> here');
  });
});
