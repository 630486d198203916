import { describe, expect, it } from 'vitest';
import {
  buildNotebook,
  EXPORT_LIMITS,
  exportThread,
  messageEntry,
  recordTurn,
  runEntry,
} from '../../../src/export/index.js';
import type { ExportEntry } from '../../../src/ports/conversation-store.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { validateNotebook } from '../../support/nbformat.js';
import { at, PNG, run } from './turn-runs.js';

describe('notebook export within its limits', () => {
  it('keeps each run within its limits and says in the notebook what was left out', async () => {
    const long = 'x'.repeat(EXPORT_LIMITS.maxTextChars + 5000);
    const charts = Array.from({ length: EXPORT_LIMITS.maxImages + 2 }, () => ({ data: { 'image/png': PNG } }));
    const huge = { data: { 'image/png': 'A'.repeat(EXPORT_LIMITS.maxImageChars + 4) } };
    const entry = runEntry(
      run('print("x" * 10**6)', {
        stdout: long,
        displays: [huge, ...charts, { data: { 'application/x-custom': '{}' } }],
        truncated: { stdoutBytes: 100, stderrBytes: 0, fullOutputPath: '.threadlab/output-1.txt' },
      }),
      1,
    ) as Extract<ExportEntry, { kind: 'run' }>;
    const stdout = entry.outputs[0]!;
    expect(stdout.type === 'stream' && stdout.text.length).toBeLessThan(EXPORT_LIMITS.maxTextChars + 100);
    expect(entry.outputs.filter((o) => o.type === 'display')).toHaveLength(EXPORT_LIMITS.maxImages);
    expect(entry.omitted).toEqual([
      '5000 characters from the middle of stdout',
      "the middle of the run's output, which the sandbox did not keep either (the full output is in .threadlab/output-1.txt)",
      `a chart of ${EXPORT_LIMITS.maxImageChars + 4} base64 characters (over ${EXPORT_LIMITS.maxImageChars})`,
      `a chart past the ${EXPORT_LIMITS.maxImages} kept per run`,
      `a chart past the ${EXPORT_LIMITS.maxImages} kept per run`,
      'a result in application/x-custom, which a notebook cannot show',
    ]);
    const tooLong = runEntry(run('#'.repeat(EXPORT_LIMITS.maxCodeChars + 1)), 1);
    expect(tooLong).toMatchObject({ kind: 'message', omitted: ['the code of a run'] });
    expect(Buffer.byteLength(JSON.stringify(entry))).toBeLessThan(EXPORT_LIMITS.maxEntryBytes);

    const notebook = buildNotebook({ log: { entries: [entry, tooLong!], dropped: 7 }, exportedAt: at });
    await validateNotebook(JSON.stringify(notebook));
    expect(notebook.cells[0]!.source).toContain('**7 earlier entries of this thread are not in this export**');
    const code = notebook.cells[1]!;
    expect(code.cell_type === 'code' && code.outputs.at(-1)).toMatchObject({
      output_type: 'display_data',
      data: { 'text/markdown': expect.stringContaining("Left out of this export (Threadlab's limits)") },
    });
    expect(notebook.cells[2]!.source).toContain('was left out of the export');
  });

  it("keeps a run's outputs within the entry budget and a long message cut", () => {
    const texts = Array.from({ length: EXPORT_LIMITS.maxDisplays }, (_, i) => ({
      data: {
        'text/plain': `${i}`.padEnd(EXPORT_LIMITS.maxTextChars, '.'),
        'text/html': `<p>${i}</p>`.padEnd(EXPORT_LIMITS.maxTextChars, '.'),
      },
    }));
    const many = runEntry(run('show()', { displays: [...texts, ...texts] }), 1)!;
    // 20 results of 128 K characters pass the 2 MB a run may take: the last ones are left out, and said.
    expect(Buffer.byteLength(JSON.stringify(many))).toBeLessThanOrEqual(EXPORT_LIMITS.maxEntryBytes);
    const kept = many.kind === 'run' ? many.outputs.length : 0;
    expect(kept).toBeGreaterThan(10);
    expect(kept).toBeLessThan(EXPORT_LIMITS.maxDisplays);
    expect(many.omitted).toContain(`a result (the run's outputs passed ${EXPORT_LIMITS.maxEntryBytes} bytes)`);
    expect(many.omitted).toContain(
      `${EXPORT_LIMITS.maxDisplays} results past the ${EXPORT_LIMITS.maxDisplays} kept per run`,
    );
    const message = messageEntry('q'.repeat(EXPORT_LIMITS.maxMessageChars * 2), [], 1)!;
    expect(message.kind === 'message' && message.text.length).toBeLessThan(EXPORT_LIMITS.maxMessageChars + 100);
    expect(message.omitted).toEqual([`${EXPORT_LIMITS.maxMessageChars} characters from the middle of a message`]);
    expect(messageEntry('  ', [], 1)).toBeUndefined();
  });

  it('keeps a full log of many short lines within the log limit as a notebook file (Discord takes 10 MiB)', async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    const lines = 'a\n'.repeat(EXPORT_LIMITS.maxTextChars / 2);
    const runs = Array.from({ length: 20 }, () => run(lines.replace(/a/g, 'x = 1'), { stdout: lines, stderr: lines }));
    for (let i = 0; i < 10; i += 1) await recordTurn({ store, threadKey: 't', runs, atMs: i });
    const log = await store.readExport('t');
    expect(log.dropped).toBeGreaterThan(0);
    const logBytes = log.entries.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
    expect(logBytes).toBeLessThanOrEqual(EXPORT_LIMITS.maxLogBytes);
    const reply = await exportThread({ store, sandbox: new FakeSandbox(), threadKey: 't' });
    const notebook = reply.files.find((f) => f.name === 'thread.ipynb')!.data;
    expect(notebook.length).toBeLessThan(logBytes * 1.1);
    expect(notebook.length).toBeLessThan(10 * 1024 * 1024);
    await validateNotebook(notebook);
  });
});
