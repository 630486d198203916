import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkFiles, storeReply } from '../../../adapters/web/reply-mapping.js';
import { WebThreadStore } from '../../../adapters/web/thread-store.js';
import type { Reply } from '../../../src/domain/reply.js';

/** A reply as buildReply makes it for `![chart](sandbox:/mnt/data/chart.png)`, a CSV link and a missing file. */
function linkedReply(prefix = ''): Reply {
  const body =
    'Chart: chart (`chart.png`, attached). Download (`summary.csv`, attached); plot (`plot.png`, not found: no run made this file). Mean 4.5.';
  const at = (words: string) => body.indexOf(words);
  const link = (words: string, rest: Omit<NonNullable<Reply['fileLinks']>[number], 'start' | 'end' | 'text'>) => ({
    start: at(words),
    end: at(words) + words.length,
    text: words,
    ...rest,
  });
  return {
    kind: 'answer',
    text: prefix + body,
    runs: [],
    images: [{ name: 'chart.png', mime: 'image/png', data: Buffer.from('png'), alt: 'chart.png' }],
    files: [{ name: 'summary.csv', mime: 'text/csv', data: Buffer.from('a,b\n') }],
    fileLinks: [
      link('chart (`chart.png`, attached)', {
        label: 'chart',
        path: 'chart.png',
        image: true,
        delivered: { kind: 'image', name: 'chart.png' },
      }),
      link('Download (`summary.csv`, attached)', {
        label: 'Download',
        path: 'summary.csv',
        image: false,
        delivered: { kind: 'file', name: 'summary.csv' },
      }),
      link('plot (`plot.png`, not found: no run made this file)', { label: 'plot', path: 'plot.png', image: true }),
    ],
    figures: {
      checked: 1,
      notFound: 0,
      notFoundTexts: [],
      unchecked: 0,
      verificationRound: false,
      line: '✓ 1 figure checked against run output',
      marks: [{ start: at('4.5'), end: at('4.5') + 3, text: '4.5', found: true, title: 'run 1, line 1' }],
    },
  };
}

describe('web chat: links to the reply files', () => {
  let root: string;
  let store: WebThreadStore;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'threadlab-web-links-'));
    store = new WebThreadStore(root);
    await store.init();
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('shows a linked image inline and links a linked file to its download; a missing one keeps its mark', async () => {
    const thread = await store.createThread();
    const message = await storeReply(store, thread.id, linkedReply());
    const image = message.images![0]!;
    const file = message.files![0]!;
    expect(message.text).toBe(
      `Chart: ![chart](${image.url}). [Download (summary.csv)](${file.url}?download=1); ` +
        'plot (`plot.png`, not found: no run made this file). Mean 4.5.',
    );
    expect(image.inline).toBe(true);
    const mark = message.figures!.marks[0]!;
    expect(message.text.slice(mark.start, mark.end)).toBe('4.5');
  });

  it('finds the links after a note was put above the reply', () => {
    const stored = {
      images: [{ id: 'i', name: 'chart.png', mime: 'image/png', alt: 'a', bytes: 3, url: '/api/files/i' }],
      files: [{ id: 'f', name: 'summary.csv', mime: 'text/csv', bytes: 4, url: '/api/files/f' }],
    };
    const { text } = linkFiles(linkedReply('_Re-ran after your edit._\n\n'), stored);
    expect(text).toContain('_Re-ran after your edit._\n\nChart: ![chart](/api/files/i). [Download (summary.csv)]');
  });

  it('leaves the words when the file is not among the stored ones, and escapes brackets in labels', () => {
    const reply = linkedReply();
    reply.fileLinks![1]!.label = 'a [b]';
    const { text } = linkFiles(reply, {
      images: [],
      files: [{ id: 'f', name: 'summary.csv', mime: 'text/csv', bytes: 1, url: '/f' }],
    });
    expect(text).toContain('chart (`chart.png`, attached)');
    expect(text).toContain('[a \\[b\\] (summary.csv)](/f?download=1)');
  });
});
