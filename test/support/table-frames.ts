import type { Display } from '../../src/domain/execution.js';
import type { Reply } from '../../src/domain/reply.js';
import { buildReply } from '../../src/replies/build-reply.js';
import { TABLE_MIME } from '../../src/domain/text/table-data.js';
import type { ArtifactRenderer } from '../../src/ports/artifact-renderer.js';

/**
 * A DataFrame display exactly as the sandbox runner makes it (sandbox/image/runner/table_display.py, checked
 * against the real engine in test/integration/sandbox/tables.test.ts): columns n, sq, name; the first 100 rows;
 * and, when cut, every row in a CSV the sandbox serves at `csvPath`.
 */
export function frameDisplay(
  totalRows: number,
  options: { namePad?: number } = {},
): { display: Display; csv?: { path: string; data: Buffer } } {
  const pad = '_'.repeat(options.namePad ?? 0);
  const row = (i: number) => [String(i), String(i * i), `r${i}${pad}`];
  const shown = Array.from({ length: Math.min(100, totalRows) }, (_, i) => row(i));
  const cut = totalRows > 100;
  const csvText = ['n,sq,name', ...Array.from({ length: totalRows }, (_, i) => row(i).join(','))].join('\n') + '\n';
  const csvPath = '.threadlab/tables/table-1700000000000000000.csv';
  const table = {
    columns: ['n', 'sq', 'name'],
    dtypes: ['int64', 'int64', 'object'],
    rows: shown,
    totalRows,
    totalColumns: 3,
    indexColumns: 0,
    ...(cut ? { csvPath, csvRows: totalRows, csvBytes: Buffer.byteLength(csvText) } : {}),
  };
  const display: Display = {
    data: {
      'text/plain': `       n  sq name\n0      0   0   r0\n[${totalRows} rows x 3 columns]`,
      'text/html': '<table class="dataframe"><tr><td>…</td></tr></table>',
      [TABLE_MIME]: JSON.stringify(table),
    },
  };
  return cut ? { display, csv: { path: csvPath, data: Buffer.from(csvText) } } : { display };
}

const noRenderer: ArtifactRenderer = {
  render: () => Promise.reject(new Error('no images in a table reply')),
} as unknown as ArtifactRenderer;

/** The Reply a direct run that displayed a `totalRows`-row DataFrame turns into (the real buildReply). */
export async function frameReply(totalRows: number, options: { namePad?: number } = {}): Promise<Reply> {
  const { display, csv } = frameDisplay(totalRows, options);
  return buildReply(
    {
      outcome: 'answer',
      text: '',
      direct: true,
      durationMs: 900,
      usage: { promptTokens: 0, completionTokens: 0 },
      runs: [
        {
          language: 'python',
          code: 'df',
          result: {
            status: 'ok',
            stdout: '',
            stderr: '',
            displays: [display],
            artifacts: [],
            durationMs: 800,
            executionCount: 1,
          },
        },
      ],
    },
    {
      sandbox: {
        readFile: (_key, path) =>
          csv && path === csv.path ? Promise.resolve(csv.data) : Promise.reject(new Error(`no such file: ${path}`)),
      },
      renderer: noRenderer,
      threadKey: 'test:tables',
      limits: { maxImageDimensionPx: 2048, maxOutputLines: 60, maxFileBytes: 10 * 1024 * 1024 },
    },
  );
}
