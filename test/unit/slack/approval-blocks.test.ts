import { describe, expect, it } from 'vitest';
import { codeBlocks } from '../../../adapters/slack/approval.js';

const texts = (blocks: unknown[]) => blocks.map((b) => (b as { text?: { text: string } }).text?.text ?? '');

describe('Slack approval message: the code in sections', () => {
  it('keeps every section within Slack’s 3,000 characters even when escaping grows the code', () => {
    const code = '&'.repeat(3000) + '\n' + '<>'.repeat(2000);
    const blocks = codeBlocks(code);
    for (const text of texts(blocks)) expect(text.length).toBeLessThanOrEqual(3000);
    const shown = texts(blocks)
      .map((t) => t.replace(/^```\n|\n```$/g, ''))
      .join('')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    expect(shown).toBe(code); // all of it, in order
    expect(JSON.stringify(blocks)).not.toContain('Only the first');
  });

  it('says how much it shows when the code does not fit in one message', () => {
    const code = 'x = 1\n'.repeat(30_000);
    const blocks = codeBlocks(code);
    expect(blocks.length).toBeLessThanOrEqual(46);
    expect(JSON.stringify(blocks.at(-1))).toMatch(/Only the first \d+ of 180000 characters/);
  });
});
