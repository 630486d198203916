import { describe, expect, it } from 'vitest';
import { buildNotebook, recordTurn } from '../../../src/export/index.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { validateNotebook } from '../../support/nbformat.js';
import { at, PNG, run } from './turn-runs.js';

describe('notebook export of active content', () => {
  it('exports only inert outputs: active HTML, SVG and Markdown are left out, said in the metadata and a visible note', async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    const table = '<table border="1" class="dataframe"><tr><td>1</td></tr></table>';
    await recordTurn({
      store,
      threadKey: 't',
      runs: [
        run('hostile()', {
          displays: [
            {
              data: {
                'text/plain': 'Hostile()',
                'text/html': '<b>hi</b><img src="data:image/png;base64,AA" onerror="alert(1)">',
              },
            },
            { data: { 'text/plain': '<IPython.core.display.HTML object>', 'text/html': '<script>alert(1)</script>' } },
            { data: { 'image/svg+xml': '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>' } },
            { data: { 'text/markdown': '[x](javascript:alert(1))', 'image/png': PNG } },
            { data: { 'text/plain': '   a\n0  1', 'text/html': table } },
            { data: { '<img src=x onerror=alert(1)>': 'x' } },
          ],
        }),
      ],
      atMs: 1,
    });
    const log = await store.readExport('t');
    const notebook = buildNotebook({ log, exportedAt: at });
    await validateNotebook(Buffer.from(JSON.stringify(notebook)));
    const cell = notebook.cells.find((c) => c.cell_type === 'code')!;
    const outputs = cell.cell_type === 'code' ? cell.outputs : [];
    const text = JSON.stringify(outputs.slice(0, -1));
    for (const active of ['<script', 'onerror', 'onload', 'javascript:', '<img'])
      expect(text, active).not.toContain(active);
    expect(outputs.slice(0, 4)).toEqual([
      {
        output_type: 'display_data',
        data: { 'text/plain': 'Hostile()' },
        metadata: { threadlab: { leftOut: ['text/html'] } },
      },
      {
        output_type: 'display_data',
        data: { 'text/plain': '<IPython.core.display.HTML object>' },
        metadata: { threadlab: { leftOut: ['text/html'] } },
      },
      {
        output_type: 'display_data',
        data: { 'image/png': PNG },
        metadata: { threadlab: { leftOut: ['text/markdown'] } },
      },
      { output_type: 'display_data', data: { 'text/plain': '   a\n0  1', 'text/html': table }, metadata: {} },
    ]);
    const note = outputs.at(-1)!;
    expect(note.output_type).toBe('display_data');
    const shown = note.output_type === 'display_data' ? note.data['text/markdown']! : '';
    expect(shown).toContain('Left out of this export as active content');
    expect(shown).toContain(
      'the text/html form of a result, which held an event handler (onerror) (its text/plain form is shown)',
    );
    expect(shown).toContain('the text/html form of a result, which held a &lt;script&gt; element');
    expect(shown).toContain('the image/svg+xml form of a result, which held an event handler (onload)');
    expect(shown).toContain(
      'the text/markdown form of a result, which held a javascript: URL (its image/png form is shown)',
    );
    expect(shown).toContain('a result in &lt;img src=x onerror=alert(1)&gt;, which a notebook cannot show');
  });

  it("shows a user's message that holds active markup as text in a fence, and others as Markdown", async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    await recordTurn({ store, threadKey: 't', message: { text: 'Plot **this**', files: [] }, runs: [], atMs: 1 });
    await recordTurn({
      store,
      threadKey: 't',
      message: { text: 'see <img src=x onerror=alert(1)> ```', files: [] },
      runs: [],
      atMs: 2,
    });
    const notebook = buildNotebook({ log: await store.readExport('t'), exportedAt: at });
    expect(notebook.cells.slice(1).map((c) => c.source)).toEqual([
      'Plot **this**',
      '````text\nsee <img src=x onerror=alert(1)> ```\n````\n\n_Shown as text: it held a URL that loads a resource._',
    ]);
  });
});
