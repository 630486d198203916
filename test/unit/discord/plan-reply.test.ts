import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { planReply } from '../../../adapters/discord/plan-reply.js';
import type { AnswerFigures } from '../../../src/domain/figures.js';
import type { Reply, ReplyImage } from '../../../src/domain/reply.js';
import type { ArtifactRenderer } from '../../../src/ports/artifact-renderer.js';

const img = (i: number, bytes = 100): ReplyImage => ({
  name: `chart-${i}.png`,
  mime: 'image/png',
  data: Buffer.alloc(bytes, i),
  alt: `chart ${i}`,
});
const reply = (over: Partial<Reply>): Reply => ({ kind: 'answer', text: '', runs: [], images: [], files: [], ...over });

/** A renderer that records contact sheet requests. */
function recordingRenderer(): ArtifactRenderer & { sheets: ReplyImage[][] } {
  const sheets: ReplyImage[][] = [];
  return {
    sheets,
    renderImage: async (input) => ({ name: input.name, mime: 'image/png', data: input.data, alt: input.alt ?? '' }),
    contactSheet: async (images) => {
      sheets.push(images);
      return { name: 'contact-sheet.png', mime: 'image/png', data: Buffer.alloc(10), alt: 'sheet' };
    },
  };
}

describe('planReply', () => {
  it('puts up to 10 images on the last text message', async () => {
    const planned = await planReply(reply({ text: 'two charts', images: [img(1), img(2)] }), { uploadLimitBytes: 1e6 });
    expect(planned).toHaveLength(1);
    expect(planned[0]?.content).toBe('two charts');
    expect(planned[0]?.files.map((f) => [f.name, f.description])).toEqual([
      ['chart-1.png', 'chart 1'],
      ['chart-2.png', 'chart 2'],
    ]);
  });

  it('turns more than 10 images into 9 plus a contact sheet', async () => {
    const renderer = recordingRenderer();
    const images = Array.from({ length: 14 }, (_, i) => img(i + 1));
    const planned = await planReply(reply({ text: 'many', images }), { uploadLimitBytes: 1e6, renderer });
    expect(planned).toHaveLength(1);
    expect(planned[0]?.files).toHaveLength(10);
    expect(planned[0]?.files[9]?.name).toBe('contact-sheet.png');
    expect(renderer.sheets[0]?.map((i) => i.name)).toEqual([
      'chart-10.png',
      'chart-11.png',
      'chart-12.png',
      'chart-13.png',
      'chart-14.png',
    ]);
  });

  it('splits text at 2,000 characters and attaches very long answers as answer.txt', async () => {
    const medium = Array.from({ length: 60 }, (_, i) => `line ${i} ${'y'.repeat(60)}`).join('\n');
    const planned = await planReply(reply({ text: medium }), { uploadLimitBytes: 1e6 });
    expect(planned.length).toBe(Math.ceil(medium.length / 2000));
    expect(planned.every((m) => m.content.length <= 2000)).toBe(true);

    const huge = Array.from({ length: 400 }, (_, i) => `line ${i} ${'z'.repeat(60)}`).join('\n');
    const long = await planReply(reply({ text: huge }), { uploadLimitBytes: 1e6 });
    expect(long).toHaveLength(1);
    expect(long[0]?.content.length).toBeLessThanOrEqual(2000);
    expect(long[0]?.content).toContain('answer.txt');
    expect(long[0]?.files[0]?.name).toBe('answer.txt');
    expect(long[0]?.files[0]?.data.toString('utf8')).toBe(huge);
  });

  it('zips a file over the limit, names one still too large, and packs files within the limit per message', async () => {
    const compressible = Buffer.alloc(5000, 'a');
    const random = randomBytes(5000);
    const planned = await planReply(
      reply({
        text: 'files',
        files: [
          { name: 'small.csv', mime: 'text/csv', data: Buffer.alloc(1500, 'b') },
          { name: 'big.csv', mime: 'text/csv', data: compressible },
          { name: 'noise.bin', mime: 'application/octet-stream', data: random },
          { name: 'second.csv', mime: 'text/csv', data: Buffer.alloc(1500, 'c') },
        ],
      }),
      { uploadLimitBytes: 2000 },
    );
    const names = planned.flatMap((m) => m.files.map((f) => f.name));
    expect(names).toEqual(['small.csv', 'big.csv.zip', 'second.csv']);
    for (const m of planned) expect(m.files.reduce((n, f) => n + f.data.length, 0)).toBeLessThanOrEqual(2000);
    expect(planned[0]?.content).toContain('`noise.bin` was not attached');
  });

  it('shows the runs when a direct run has no text, with a footer', async () => {
    const planned = await planReply(
      reply({
        runs: [{ language: 'bash', code: 'echo ```hi', status: 'error', durationMs: 1200, outputExcerpt: 'boom' }],
        footer: { durationMs: 1500, runs: 1, model: 'gpt-test' },
      }),
      { uploadLimitBytes: 1e6 },
    );
    const content = planned[0]!.content;
    expect(content.startsWith('```bash\n')).toBe(true);
    expect(content.split('\n').filter((l) => l.startsWith('```')).length % 2).toBe(0);
    expect(content).toContain('boom');
    expect(content).toContain('Status: **error**');
    expect(content).toContain('-# ⏱ 1.5 s · 1 run · gpt-test');
  });

  it('sends nothing empty', async () => {
    expect(await planReply(reply({}), { uploadLimitBytes: 1e6 })).toEqual([]);
  });

  const figures = (line: string, notFound = 0): AnswerFigures => ({
    checked: 2,
    notFound,
    notFoundTexts: [],
    unchecked: 0,
    line,
    marks: [],
    verificationRound: false,
  });

  it('puts the figures line in the footer, above the timings, with markdown escaped', async () => {
    const planned = await planReply(
      reply({
        text: 'Mean 12.4 %, total 54.',
        figures: figures('⚠ 1 figure not found in any output: 12.4 %, *5*', 1),
        footer: { durationMs: 1500, runs: 1 },
      }),
      { uploadLimitBytes: 1e6 },
    );
    expect(planned[0]!.content).toBe(
      'Mean 12.4 %, total 54.\n\n-# ⚠ 1 figure not found in any output: 12.4 %, \\*5\\*\n-# ⏱ 1.5 s · 1 run',
    );
  });

  it('shows the footer with the figures line under the beginning of an answer sent as answer.txt', async () => {
    const huge = Array.from({ length: 400 }, (_, i) => `line ${i} ${'z'.repeat(60)}`).join('\n');
    const line = '✓ 2 figures checked against run output';
    const planned = await planReply(
      reply({ text: huge, figures: figures(line), footer: { durationMs: 900, runs: 1 } }),
      { uploadLimitBytes: 1e6 },
    );
    expect(planned).toHaveLength(1);
    const content = planned[0]!.content;
    expect(content.length).toBeLessThanOrEqual(2000);
    expect(content).toContain('answer.txt');
    expect(content.endsWith(`-# ${line}\n-# ⏱ 900 ms · 1 run`)).toBe(true);
    expect(planned[0]!.files[0]!.data.toString('utf8').startsWith(huge)).toBe(true);
  });

  it('cuts a figures line past 500 characters visibly', async () => {
    const line = `⚠ 1 figure not found in any output: ${'9'.repeat(900)}`;
    const planned = await planReply(reply({ text: 'ok', figures: figures(line, 1) }), { uploadLimitBytes: 1e6 });
    const shown = planned[0]!.content.split('\n').at(-1)!;
    expect(shown).toBe(`-# ${line.slice(0, 499)}…`);
  });

  it('says nothing about figures when the answer states none', async () => {
    const planned = await planReply(reply({ text: 'No figures.', figures: { ...figures(''), checked: 0 } }), {
      uploadLimitBytes: 1e6,
    });
    expect(planned[0]!.content).toBe('No figures.');
  });
});
