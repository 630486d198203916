import type { Artifact, SandboxFile } from '../../../src/domain/execution.js';
import { mimeFromName } from '../../../src/domain/mime.js';
import type { Reply } from '../../../src/domain/reply.js';
import { buildReply } from '../../../src/replies/build-reply.js';
import { MapSandbox, RecordingRenderer, run, turn } from './helpers.js';

/** A sandbox that also lists its files, as the real one does for the answer's links to earlier files. */
export class ListingSandbox extends MapSandbox {
  listings = 0;
  async listFiles(_key: string): Promise<SandboxFile[]> {
    this.listings += 1;
    return [...this.files].map(([path, data]) => ({
      path,
      bytes: data.length,
      mime: mimeFromName(path),
      modifiedMs: 0,
    }));
  }
}

export const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** The answer a model trained on ChatGPT writes after drawing chart.png and writing summary.csv. */
export const CHATGPT_STYLE_ANSWER =
  'Here is the chart:\n\n![chart](sandbox:/mnt/data/chart.png)\n\n' +
  '[Download](sandbox:/mnt/data/summary.csv) the summary. The residuals are in ![residuals](sandbox:/mnt/data/residuals.png).';

/** The Reply the pipeline builds for {@link CHATGPT_STYLE_ANSWER}, as adapters receive it. */
export async function chatgptStyleReply(o: { csvBytes?: number } = {}): Promise<Reply> {
  const csv = Buffer.alloc(o.csvBytes ?? 8, 'a');
  const artifact = (path: string, bytes: number): Artifact => ({
    path,
    bytes,
    mime: mimeFromName(path),
    change: 'created',
  });
  const sandbox = new ListingSandbox(
    new Map([
      ['chart.png', PNG_1PX],
      ['summary.csv', csv],
    ]),
  );
  return buildReply(
    turn({
      text: CHATGPT_STYLE_ANSWER,
      runs: [run({ artifacts: [artifact('chart.png', PNG_1PX.length), artifact('summary.csv', csv.length)] })],
    }),
    {
      sandbox,
      renderer: new RecordingRenderer(),
      threadKey: 'discord:1:2',
      limits: { maxImageDimensionPx: 2048, maxOutputLines: 60, maxFileBytes: 1_000_000 },
    },
  );
}
