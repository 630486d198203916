import { describe, expect, it } from 'vitest';
import type { Artifact } from '../../../src/domain/execution.js';
import { mimeFromName } from '../../../src/domain/mime.js';
import { buildReply, type BuildReplyDeps } from '../../../src/replies/build-reply.js';
import { MapSandbox, RecordingRenderer, run, turn } from './helpers.js';
import { ListingSandbox, PNG_1PX as PNG } from './linked-reply.js';

function artifact(path: string, bytes: number, mime = mimeFromName(path)): Artifact {
  return { path, bytes, mime, change: 'created' };
}

function deps(sandbox: MapSandbox, limits: Partial<BuildReplyDeps['limits']> = {}): BuildReplyDeps {
  return {
    sandbox,
    renderer: new RecordingRenderer(),
    threadKey: 'web:t1',
    limits: { maxImageDimensionPx: 2048, maxOutputLines: 60, maxFileBytes: 10_000, ...limits },
  };
}

/** A turn whose run drew chart.png and wrote summary.csv, answered the ChatGPT way. */
function chartTurn(text: string) {
  return turn({
    text,
    runs: [run({ artifacts: [artifact('chart.png', PNG.length), artifact('summary.csv', 8)] })],
  });
}

describe('buildReply: links to the run files', () => {
  it('turns sandbox links into the delivered files, marks a missing one, and leaves no sandbox: behind', async () => {
    const sandbox = new ListingSandbox(
      new Map([
        ['chart.png', PNG],
        ['summary.csv', Buffer.from('a,b\n1,2\n')],
      ]),
    );
    const reply = await buildReply(
      chartTurn(
        'Here is the chart:\n\n![chart](sandbox:/mnt/data/chart.png)\n\n' +
          '[Download](sandbox:/mnt/data/summary.csv) the summary, and see ![plot](sandbox:/mnt/data/plot.png).',
      ),
      deps(sandbox),
    );
    expect(reply.text).toBe(
      'Here is the chart:\n\nchart (`chart.png`, attached)\n\n' +
        'Download (`summary.csv`, attached) the summary, and see plot (`plot.png`, not found: no run made this file).',
    );
    expect(reply.text).not.toContain('sandbox:');
    expect(reply.fileLinks).toEqual([
      expect.objectContaining({ label: 'chart', path: 'chart.png', delivered: { kind: 'image', name: 'chart.png' } }),
      expect.objectContaining({ label: 'Download', delivered: { kind: 'file', name: 'summary.csv' } }),
      expect.objectContaining({ label: 'plot', path: 'plot.png', image: true }),
    ]);
    expect(reply.fileLinks![2]!.delivered).toBeUndefined();
    for (const link of reply.fileLinks!) expect(reply.text.slice(link.start, link.end)).toBe(link.text);
    // The chart is shown as the reply's image once, not also attached as a file with the same bytes.
    expect(reply.images.map((i) => i.name)).toEqual(['chart.png']);
    expect(reply.files.map((f) => f.name)).toEqual(['summary.csv']);
  });

  it('keeps an image file that is not linked as both image and file, as before', async () => {
    const sandbox = new ListingSandbox(new Map([['chart.png', PNG]]));
    const reply = await buildReply(
      turn({ text: 'Drawn.', runs: [run({ artifacts: [artifact('chart.png', PNG.length)] })] }),
      deps(sandbox),
    );
    expect(reply.fileLinks).toBeUndefined();
    expect(reply.images.map((i) => i.name)).toEqual(['chart.png']);
    expect(reply.files.map((f) => f.name)).toEqual(['chart.png']);
    expect(sandbox.listings).toBe(0);
  });

  it('attaches a linked file of an earlier message, showing an image as an image only', async () => {
    const sandbox = new ListingSandbox(
      new Map([
        ['old.png', PNG],
        ['earlier/data.csv', Buffer.from('x\n1\n')],
      ]),
    );
    const reply = await buildReply(
      turn({ text: 'As before: ![old](old.png) and [data](/mnt/data/earlier/data.csv).' }),
      deps(sandbox),
    );
    expect(reply.text).toBe('As before: old (`old.png`, attached) and data (`data.csv`, attached).');
    expect(reply.images.map((i) => i.name)).toEqual(['old.png']);
    expect(reply.files.map((f) => [f.name, f.description])).toEqual([
      ['data.csv', 'linked in the answer (/mnt/data/earlier/data.csv)'],
    ]);
    expect(sandbox.listings).toBe(1);
  });

  it('lists an earlier file that does not fit as omitted, and says so where it was linked', async () => {
    const sandbox = new ListingSandbox(
      new Map([
        ['big.csv', Buffer.alloc(20_000, 65)],
        ['a.csv', Buffer.from('1')],
        ['b.csv', Buffer.from('2')],
      ]),
    );
    const reply = await buildReply(
      turn({ text: '[big](sandbox:/mnt/data/big.csv) [a](sandbox:/mnt/data/a.csv) [b](sandbox:/mnt/data/b.csv)' }),
      deps(sandbox, {
        bounds: { maxFiles: 1, maxFileBytesTotal: 1_000_000, maxOmitted: 10, maxListedNamesChars: 500 },
      }),
    );
    expect(reply.text).toBe(
      'big (`big.csv`, not attached: over the 9.8 KB attachment limit) a (`a.csv`, attached) ' +
        'b (`b.csv`, not attached: at most 1 files per reply)',
    );
    expect(reply.files.map((f) => f.name)).toEqual(['a.csv']);
    expect(reply.omitted?.map((o) => o.name)).toEqual(['big.csv', 'b.csv']);
    expect(reply.omitted?.[0]!.reason).toContain('it stays in /mnt/data/big.csv');
  });

  it('marks a run file that was too large to attach, naming the limit', async () => {
    const sandbox = new ListingSandbox(new Map([['huge.csv', Buffer.alloc(50_000)]]));
    const reply = await buildReply(
      turn({
        text: 'Saved [it](sandbox:/mnt/data/huge.csv).',
        runs: [run({ artifacts: [artifact('huge.csv', 50_000)] })],
      }),
      deps(sandbox),
    );
    expect(reply.text).toBe('Saved it (`huge.csv`, not attached: over the 9.8 KB attachment limit).');
    expect(sandbox.listings).toBe(0);
  });

  it('marks refused paths and links past the limit, never reading them', async () => {
    const links = Array.from({ length: 21 }, (_, i) => `[f${i}](sandbox:/mnt/data/f${i}.csv)`).join(' ');
    const sandbox = new ListingSandbox(new Map(Array.from({ length: 21 }, (_, i) => [`f${i}.csv`, Buffer.from('1')])));
    const reply = await buildReply(
      turn({ text: `[p](sandbox:/etc/passwd) [q](sandbox:/mnt/data/../../etc/shadow) ${links}` }),
      deps(sandbox),
    );
    expect(reply.text).toContain(
      'p (`sandbox:/etc/passwd`, not a file of this thread: only files in /mnt/data can be linked)',
    );
    expect(reply.text).toContain(
      'q (`sandbox:/mnt/data/../../etc/shadow`, not a file of this thread: paths with ".." are not followed)',
    );
    expect(reply.text).toContain('f17 (`f17.csv`, attached)');
    expect(reply.text).toContain('f18 (`f18.csv`, not looked up: more than 20 file links in one answer)');
    expect(sandbox.reads).not.toContain('f18.csv');
    expect(sandbox.reads.some((p) => p.includes('etc'))).toBe(false);
    expect(reply.text).not.toContain('](');
  });

  it('leaves direct-mode output and links in code alone', async () => {
    const sandbox = new ListingSandbox();
    const text = 'Use `![x](sandbox:/mnt/data/x.png)` to embed it.';
    const reply = await buildReply(turn({ text }), deps(sandbox));
    expect(reply.text).toBe(text);
    expect(reply.fileLinks).toBeUndefined();
    const direct = await buildReply(
      turn({ direct: true, runs: [run({ stdout: '[a](sandbox:/mnt/data/a)\n' })] }),
      deps(sandbox),
    );
    expect(direct.text).toContain('[a](sandbox:/mnt/data/a)');
  });

  it('moves the figure marks that come after a rewritten link', async () => {
    const sandbox = new ListingSandbox(new Map([['summary.csv', Buffer.from('1')]]));
    const text = 'See [s](sandbox:/mnt/data/summary.csv): the mean is 4.5.';
    const at = text.indexOf('4.5');
    const reply = await buildReply(
      turn({
        text,
        runs: [run({ artifacts: [artifact('summary.csv', 1)] })],
        figures: {
          checked: 1,
          notFound: 0,
          notFoundTexts: [],
          unchecked: 0,
          line: '✓ 1 figure checked against run output',
          marks: [{ start: at, end: at + 3, text: '4.5', found: true }],
        } as never,
      }),
      deps(sandbox),
    );
    const mark = reply.figures!.marks[0]!;
    expect(reply.text.slice(mark.start, mark.end)).toBe('4.5');
  });
});
