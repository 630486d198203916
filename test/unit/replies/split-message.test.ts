import { describe, expect, it } from 'vitest';
import { findFences } from '../../../src/domain/text/fences.js';
import { planSplit, splitMessage } from '../../../src/replies/split-message.js';
import { DISCORD_MESSAGE_CHARS } from '../../../adapters/discord/profile.js';
import { SLACK_TEXT_LIMITS } from '../../../adapters/slack/profile.js';

/** Every fence a chunk opens is closed in the same chunk (what makes each message render on its own). */
function unclosedFences(chunk: string): number {
  return findFences(chunk).filter((f) => f.closeStart >= chunk.length).length;
}

function checkSplit(text: string, maxChars: number): string[] {
  const plan = planSplit(text, { maxChars });
  const chunks = splitMessage(text, { maxChars });
  expect(plan.map((c) => c.body).join('')).toBe(text);
  expect(chunks).toEqual(plan.map((c) => c.reopen + c.body + c.close));
  for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(maxChars);
  return chunks;
}

function prng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'data', 'frame', 'plot', 'x', 'résumé', '数据', '🎉'];

function randomMarkdown(rand: () => number, blocks: number): string {
  const out: string[] = [];
  for (let b = 0; b < blocks; b++) {
    const r = rand();
    if (r < 0.3) {
      const lines = Array.from(
        { length: 1 + Math.floor(rand() * 40) },
        (_, i) => `    value_${i} = compute(${i}) * ${Math.floor(rand() * 1000)}`,
      );
      out.push(`\`\`\`${rand() < 0.5 ? 'python' : 'text'}\n${lines.join('\n')}\n\`\`\``);
    } else if (r < 0.4) {
      out.push('x'.repeat(Math.floor(rand() * 3000))); // a token longer than some limits
    } else {
      const words = Array.from(
        { length: 5 + Math.floor(rand() * 300) },
        () => WORDS[Math.floor(rand() * WORDS.length)],
      );
      out.push(words.join(rand() < 0.2 ? '\n' : ' '));
    }
  }
  return out.join('\n\n');
}

describe('splitMessage', () => {
  it('returns short text as one chunk, untouched', () => {
    expect(splitMessage('hello **world**', { maxChars: 2000 })).toEqual(['hello **world**']);
  });

  it('splits at a paragraph before a line, and at a line before a word', () => {
    const para = `${'a'.repeat(60)}\n\n${'b'.repeat(30)}\n${'c'.repeat(30)}`;
    expect(checkSplit(para, 80)[0]).toBe(`${'a'.repeat(60)}\n\n`);
    const lines = `${'a '.repeat(25)}\n${'b '.repeat(25)}`;
    expect(checkSplit(lines, 60)[0]).toBe(`${'a '.repeat(25)}\n`);
    const words = 'word '.repeat(40);
    expect(checkSplit(words, 52).every((c) => /^(word )+$/.test(c) || /^(word ?)+$/.test(c))).toBe(true);
  });

  it('hard-splits a token longer than the limit, never inside a surrogate pair', () => {
    const chunks = checkSplit('🎉'.repeat(100), 33);
    for (const c of chunks) expect(c).toMatch(/^(🎉)+$/u);
  });

  it('closes a code fence at the end of a chunk and reopens it with its language', () => {
    const code = Array.from({ length: 50 }, (_, i) => `print("line ${i}")`).join('\n');
    const text = `Here is the code:\n\n\`\`\`python\n${code}\n\`\`\`\n\nAnd that is all.`;
    const chunks = checkSplit(text, 400);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks[0]).toMatch(/\n```$/);
    for (const chunk of chunks.slice(1, -1)) {
      expect(chunk.startsWith('```python\n')).toBe(true);
      expect(chunk.endsWith('\n```')).toBe(true);
    }
    for (const chunk of chunks) expect(findFences(chunk).every((f) => f.closeStart < chunk.length)).toBe(true);
    // The split's own fences are the only additions: the code lines all arrive, once each, in order.
    const lines = chunks
      .join('\n')
      .split('\n')
      .filter((l) => l.startsWith('print('));
    expect(lines).toEqual(code.split('\n'));
  });

  it('reopens tilde and long fences with their own marker, and keeps an inner ``` as content', () => {
    const inner = Array.from({ length: 30 }, (_, i) => (i === 10 ? '```js' : `line ${i}`)).join('\n');
    const text = `~~~~markdown\n${inner}\n~~~~\nafter`;
    const chunks = checkSplit(text, 120);
    expect(chunks[1]!.startsWith('~~~~markdown\n')).toBe(true);
    expect(chunks[0]!.endsWith('\n~~~~')).toBe(true);
  });

  it('does not leave an empty reopened block before a closing fence', () => {
    // The closing line (with trailing spaces) does not fit the first chunk, the newline before it does.
    const text = `\`\`\`\n${'x\n'.repeat(36)}\`\`\`${' '.repeat(10)}\ntail text here`;
    const chunks = checkSplit(text, 84);
    for (const chunk of chunks) expect(chunk).not.toMatch(/^```\n``` *\n/);
    expect(chunks[1]).toMatch(/^```\nx\n```/);
  });

  it.each([
    ['Slack text', SLACK_TEXT_LIMITS.textChars, 120_000],
    ['Slack section', SLACK_TEXT_LIMITS.sectionChars, 20_000],
    ['Discord message', DISCORD_MESSAGE_CHARS, 20_000],
  ])('fits the %s limit (%i chars) on mixed markdown, preserving everything', (_, limit, size) => {
    const rand = prng(limit);
    let text = '';
    while (text.length < size) text += `${randomMarkdown(rand, 20)}\n\n`;
    const chunks = checkSplit(text, limit);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(text.length / limit));
    const fenced = chunks.filter((c) => findFences(c).length > 0);
    expect(fenced.length).toBeGreaterThan(0);
    for (const chunk of chunks) expect(unclosedFences(chunk)).toBe(0);
  });

  it('keeps every chunk within the limit for random texts and small limits', () => {
    const rand = prng(42);
    for (let i = 0; i < 200; i++) {
      const text = randomMarkdown(rand, 1 + Math.floor(rand() * 6));
      const limit = 16 + Math.floor(rand() * 500);
      checkSplit(text, limit);
    }
  });

  it('rejects a limit too small to hold a fence', () => {
    expect(() => splitMessage('abc', { maxChars: 4 })).toThrow(RangeError);
  });
});
