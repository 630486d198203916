import { describe, expect, it } from 'vitest';
import { planReply } from '../../../adapters/slack/reply-blocks.js';
import { chatgptStyleReply } from '../replies/linked-reply.js';

describe('Slack: links to the reply files', () => {
  it('says each linked file is attached (the upload follows the text), marks the missing one, and keeps no sandbox link', async () => {
    const reply = await chatgptStyleReply();
    const plan = planReply(reply);
    const text = JSON.stringify(plan.messages.map((m) => m.blocks));
    expect(text).toContain('chart (`chart.png`, attached)');
    expect(text).toContain('Download (`summary.csv`, attached) the summary.');
    expect(text).toContain('residuals (`residuals.png`, not found: no run made this file)');
    expect(text).not.toContain('sandbox:');
    // Uploaded with the reply: the chart as its image, the CSV as a file, each once.
    expect([...reply.images, ...reply.files].map((f) => f.name)).toEqual(['chart.png', 'summary.csv']);
  });
});
