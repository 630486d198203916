import { describe, expect, it } from 'vitest';
import { findFileLinks, MAX_FILE_LINKS, sandboxPath } from '../../../src/replies/file-links.js';
import { applyEdits, fileLinkWords, locateFileLinks } from '../../../src/replies/file-link-text.js';
import type { ReplyFileLink } from '../../../src/domain/reply.js';

describe('findFileLinks: the forms models write', () => {
  it.each([
    ['![chart](sandbox:/mnt/data/chart.png)', true, 'chart', 'chart.png'],
    ['[Download](sandbox:/mnt/data/summary.csv)', false, 'Download', 'summary.csv'],
    ['[the report](/mnt/data/out/report.xlsx)', false, 'the report', 'out/report.xlsx'],
    ['[x](attachment://x.csv)', false, 'x', 'x.csv'],
    ['[x](file:///mnt/data/x.csv)', false, 'x', 'x.csv'],
    ['![plot](chart.png)', true, 'plot', 'chart.png'],
    ['![plot](./plots/chart.png "Revenue")', true, 'plot', 'plots/chart.png'],
    ['[data](<sandbox:/mnt/data/my data.csv>)', false, 'data', 'my data.csv'],
    // Qwen writes the name percent-encoded (QwenLM/Qwen3#1614).
    ['[slides](sandbox:/mnt/data/%E7%88%B1.pptx)', false, 'slides', '爱.pptx'],
    ['[f](sandbox:/mnt/data/f(1).csv)', false, 'f', 'f(1).csv'],
  ])('%s', (text, image, label, path) => {
    const [link, ...rest] = findFileLinks(`Here: ${text}. Done.`);
    expect(rest).toEqual([]);
    expect(link).toMatchObject({ image, label, path, start: 6, end: 6 + text.length });
  });

  it('leaves web links, anchors and bare relative names outside images alone', () => {
    const text =
      '[docs](https://example.org/a.png) ![logo](https://example.org/logo.png) [top](#top) [readme](README.md) ![x](//cdn/x.png) ![y](/static/y.png)';
    expect(findFileLinks(text)).toEqual([]);
  });

  it('refuses paths outside /mnt/data and traversal, so they are marked rather than looked up', () => {
    const links = findFileLinks(
      '[a](sandbox:/etc/passwd) [b](file:///home/u/.ssh/id_rsa) [c](sandbox:/mnt/data/../../etc/shadow) ' +
        '![d](../secret.png) [e](/mnt/data/%2e%2e/x) [f](sandbox:/mnt/data/) [g](sandbox:/mnt/data/a\\b)',
    );
    expect(links.map((l) => [l.label, l.path, l.refused])).toEqual([
      ['a', undefined, 'only files in /mnt/data can be linked'],
      ['b', undefined, 'only files in /mnt/data can be linked'],
      ['c', undefined, 'paths with ".." are not followed'],
      ['d', undefined, 'paths with ".." are not followed'],
      ['e', undefined, 'paths with ".." are not followed'],
      ['f', undefined, 'it names a folder, not a file'],
      ['g', undefined, 'the path holds control characters or backslashes'],
    ]);
    // A plain absolute path elsewhere is not the sandbox's to judge.
    expect(sandboxPath('/etc/passwd', false)).toBeUndefined();
  });

  it('leaves links inside code fences and code spans alone', () => {
    const text = [
      'Saved `![chart](sandbox:/mnt/data/in-span.png)` and ``a ` [x](sandbox:/mnt/data/in-double.csv)``.',
      '```markdown',
      '![chart](sandbox:/mnt/data/in-fence.png)',
      '```',
      '~~~',
      '[x](sandbox:/mnt/data/in-tilde.csv)',
      '~~~',
      'Real: [y](sandbox:/mnt/data/real.csv)',
    ].join('\n');
    expect(findFileLinks(text).map((l) => l.path)).toEqual(['real.csv']);
  });

  it(`handles at most ${MAX_FILE_LINKS} links; later ones are marked beyond the limit`, () => {
    const text = Array.from({ length: 25 }, (_, i) => `[f${i}](sandbox:/mnt/data/f${i}.csv)`).join(' ');
    const links = findFileLinks(text);
    expect(links).toHaveLength(25);
    expect(links.filter((l) => !l.beyondLimit)).toHaveLength(MAX_FILE_LINKS);
    expect(links[MAX_FILE_LINKS]!.beyondLimit).toBe(true);
    expect(findFileLinks(text, { maxLinks: 3 }).filter((l) => !l.beyondLimit)).toHaveLength(3);
  });

  it('ignores a destination longer than 1,024 characters', () => {
    expect(findFileLinks(`[x](sandbox:/mnt/data/${'a'.repeat(1100)}.csv)`)).toEqual([]);
  });
});

describe('file link text', () => {
  it('says the name once when the label repeats it, and keeps a label that says more', () => {
    expect(fileLinkWords({ label: 'chart.png', name: 'chart.png', status: 'attached' })).toBe('`chart.png` (attached)');
    expect(fileLinkWords({ label: '', name: 'plots/a.png', status: 'attached' })).toBe('`plots/a.png` (attached)');
    expect(fileLinkWords({ label: 'Download', name: 'summary.csv', status: 'attached' })).toBe(
      'Download (`summary.csv`, attached)',
    );
    expect(fileLinkWords({ label: '', name: 'a`b.csv', status: 'attached' })).toBe('`` a`b.csv `` (attached)');
  });

  it('applies edits and moves later offsets by what each edit changed', () => {
    const edited = applyEdits('0123456789', [
      { start: 6, end: 8, replacement: 'XXXX' },
      { start: 1, end: 3, replacement: '' },
    ]);
    expect(edited.text).toBe('0345XXXX89');
    expect([edited.shift(0), edited.shift(4), edited.shift(7), edited.shift(9)]).toEqual([0, 2, 4, 9]);
  });

  it('finds the words of each link after notes were put above and below the reply', () => {
    const link = (start: number, text: string): ReplyFileLink => ({
      start,
      end: start + text.length,
      text,
      label: '',
      path: 'a',
      image: false,
    });
    const body = 'See `a.csv` (attached) and `b.csv` (attached).';
    const links = [link(4, '`a.csv` (attached)'), link(27, '`b.csv` (attached)')];
    expect(locateFileLinks(body, links).map((l) => l.start)).toEqual([4, 27]);
    const moved = `_Re-ran after your edit._\n\n${body}\n\n_note_`;
    expect(locateFileLinks(moved, links).map((l) => moved.slice(l.start, l.start + 18))).toEqual([
      '`a.csv` (attached)',
      '`b.csv` (attached)',
    ]);
    expect(locateFileLinks('nothing here', links)).toEqual([]);
  });
});
