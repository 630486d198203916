import { describe, expect, it } from 'vitest';
import { planReply } from '../../../adapters/discord/plan-reply.js';
import { chatgptStyleReply } from '../replies/linked-reply.js';

describe('Discord: links to the reply files', () => {
  it('posts the linked chart and CSV once each, says they are attached, and marks the missing one', async () => {
    const messages = await planReply(await chatgptStyleReply(), { uploadLimitBytes: 1_000_000 });
    const content = messages.map((m) => m.content).join('\n');
    expect(content).toContain('chart (`chart.png`, attached)');
    expect(content).toContain('Download (`summary.csv`, attached) the summary.');
    expect(content).toContain('residuals (`residuals.png`, not found: no run made this file)');
    expect(content).not.toContain('sandbox:');
    expect(messages.flatMap((m) => m.files.map((f) => f.name))).toEqual(['chart.png', 'summary.csv']);
  });

  it('names the zip a linked file was sent as, and says when it could not be attached at all', async () => {
    const zipped = await planReply(await chatgptStyleReply({ csvBytes: 5000 }), { uploadLimitBytes: 1000 });
    expect(zipped.map((m) => m.content).join('\n')).toContain(
      'Download (`summary.csv.zip`, attached, zipped to fit the upload limit) the summary.',
    );
    expect(zipped.flatMap((m) => m.files.map((f) => f.name))).toEqual(['chart.png', 'summary.csv.zip']);

    const refused = await planReply(await chatgptStyleReply({ csvBytes: 5000 }), { uploadLimitBytes: 10 });
    const content = refused.map((m) => m.content).join('\n');
    expect(content).toContain("chart (`chart.png`, not attached: over this channel's upload limit)");
    expect(content).toContain("Download (`summary.csv`, not attached: over this channel's upload limit)");
  });
});
