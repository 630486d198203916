import { describe, expect, it } from 'vitest';
import { planReply, type SlackBlock } from '../../../adapters/slack/reply-blocks.js';
import type { AnswerFigures } from '../../../src/domain/figures.js';
import type { Reply, RunRecord } from '../../../src/domain/reply.js';

const reply = (text: string, extra: Partial<Reply> = {}): Reply => ({
  kind: 'answer',
  text,
  runs: [],
  images: [],
  files: [],
  ...extra,
});
const textOf = (b: SlackBlock): string =>
  ((b as { text?: { text?: string } }).text?.text ?? '') + JSON.stringify((b as { elements?: unknown }).elements ?? '');
const run = (code: string, extra: Partial<RunRecord> = {}): RunRecord => ({
  language: 'python',
  code,
  status: 'ok',
  durationMs: 1200,
  ...extra,
});

describe('planReply (Reply → Block Kit)', () => {
  it('splits a long answer into sections of at most 3,000 characters and loses nothing', () => {
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: ${'word '.repeat(50)}`);
    const plan = planReply(reply(paragraphs.join('\n\n')));
    expect(plan.files).toEqual([]);
    const sections = plan.messages.flatMap((m) => m.blocks).filter((b) => b.type === 'section');
    expect(sections.length).toBeGreaterThan(1);
    for (const s of sections) expect(textOf(s).length).toBeLessThanOrEqual(3000);
    const joined = sections.map(textOf).join('');
    for (let i = 0; i < 40; i += 1) expect(joined).toContain(`Paragraph ${i}:`);
  });

  it('attaches an answer longer than the inline limit as answer.md, in full, with a preview', () => {
    const text = 'x'.repeat(39_000) + '\nTHE END';
    const plan = planReply(reply(text));
    expect(plan.files).toHaveLength(1);
    expect(plan.files[0]!.name).toBe('answer.md');
    expect(plan.files[0]!.data.toString('utf8')).toBe(text);
    const shown = plan.messages
      .flatMap((m) => m.blocks)
      .map(textOf)
      .join('');
    expect(shown).toContain('attached as `answer.md`');
    expect(shown.length).toBeLessThan(4000);
  });

  it('never puts more than 50 blocks in one message', () => {
    const runs = Array.from({ length: 40 }, (_, i) => run(`print(${i})`));
    const plan = planReply(reply('many runs', { runs }));
    expect(plan.messages.length).toBeGreaterThan(1);
    for (const m of plan.messages) expect(m.blocks.length).toBeLessThanOrEqual(50);
    expect(
      plan.messages
        .flatMap((m) => m.blocks)
        .map(textOf)
        .join(''),
    ).toContain('print(39)');
  });

  it('shows short code inline with its output, and attaches long code as a snippet', () => {
    const long = Array.from({ length: 60 }, (_, i) => `x${i} = ${i}`).join('\n');
    const plan = planReply(
      reply('done', { runs: [run('print(1 < 2)', { outputExcerpt: 'True' }), run(long, { language: 'bash' })] }),
    );
    const shown = plan.messages
      .flatMap((m) => m.blocks)
      .map(textOf)
      .join('\n');
    expect(shown).toContain('print(1 &lt; 2)');
    expect(shown).toContain('*Output*');
    expect(plan.files).toEqual([expect.objectContaining({ name: 'code-2.sh', snippetType: 'bash' })]);
    expect(plan.files[0]!.data.toString()).toBe(long);
  });

  it('attaches code that would outgrow a section once escaped', () => {
    const plan = planReply(reply('done', { runs: [run('x = 1 < 2 < 3 < 4;'.repeat(120))] }));
    expect(plan.files.map((f) => f.name)).toEqual(['code-1.py']);
    for (const b of plan.messages.flatMap((m) => m.blocks)) expect(textOf(b).length).toBeLessThanOrEqual(3000);
  });

  it('does not repeat the output of a direct run that is already the answer', () => {
    const plan = planReply(reply('```\n42\n```', { runs: [run('print(42)', { outputExcerpt: '42\n' })] }));
    expect(plan.messages[0]!.blocks.map(textOf).join('')).not.toContain('*Output*');
  });

  it('marks errors, lists omitted files and adds a footer', () => {
    const plan = planReply(
      reply('It failed.', {
        kind: 'error',
        omitted: [{ name: 'big.parquet', bytes: 3 * 1024 ** 3, reason: 'too large' }],
        footer: { durationMs: 4200, runs: 2, tokens: 12345, model: 'gpt-4.1-mini' },
      }),
    );
    const blocks = plan.messages[0]!.blocks.map(textOf);
    expect(blocks[0]).toMatch(/^:warning: It failed\./);
    expect(blocks.join('')).toContain('`big.parquet` (3.0 GB) was not attached: too large');
    expect(blocks.at(-1)).toContain('4.2 s · 2 runs · 12,345 tokens · gpt-4.1-mini');
    expect(plan.messages[0]!.text).toBe(':warning: It failed.');
  });

  it('shows the check of the figures in a context block just above the footer, escaped', () => {
    const figures: AnswerFigures = {
      checked: 3,
      notFound: 1,
      notFoundTexts: ['<12.4 %>'],
      unchecked: 0,
      line: '⚠ 1 figure not found in any output: <12.4 %>',
      marks: [],
      verificationRound: true,
    };
    const plan = planReply(reply('The mean is 12.4 %.', { figures, footer: { durationMs: 900, runs: 1 } }));
    const blocks = plan.messages[0]!.blocks;
    expect(blocks.at(-2)).toEqual({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: '⚠ 1 figure not found in any output: &lt;12.4 %&gt;' }],
    });
    expect(textOf(blocks.at(-1)!)).toContain(':stopwatch:');
  });

  it('keeps the figures line in the thread when the answer goes as answer.md, and says nothing without figures', () => {
    const line = '✓ 6 figures checked against run output';
    const figures = {
      checked: 6,
      notFound: 0,
      notFoundTexts: [],
      unchecked: 0,
      line,
      marks: [],
      verificationRound: false,
    };
    const long = planReply(reply('x'.repeat(20_000), { figures }));
    expect(long.files.map((f) => f.name)).toEqual(['answer.md']);
    expect(
      long.messages
        .flatMap((m) => m.blocks)
        .map(textOf)
        .join(''),
    ).toContain(line);
    const none = planReply(reply('Nothing counted.', { figures: { ...figures, checked: 0, line: '' } }));
    expect(none.messages[0]!.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: 'Nothing counted.' } }]);
  });

  it('cuts a figures line too long for a context block visibly', () => {
    const line = `⚠ 1 figure not found in any output: ${'&'.repeat(4000)}`;
    const figures = {
      checked: 1,
      notFound: 1,
      notFoundTexts: [],
      unchecked: 0,
      line,
      marks: [],
      verificationRound: false,
    };
    const shown = textOf(planReply(reply('ok', { figures })).messages[0]!.blocks.at(-1)!);
    expect(shown.length).toBeLessThanOrEqual(3000 + 50);
    expect(shown).toContain('…');
    expect(shown).not.toMatch(/&(?!amp;)/);
  });
});
