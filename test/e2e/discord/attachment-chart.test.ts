import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { Reply } from '../../../src/domain/reply.js';
import { makePng, startHarness, type Harness } from './harness.js';
import { downloadAll } from '../../support/download.js';

describe('Discord: an attachment and a question', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('downloads the attachment and answers with a chart whose bytes decode as a PNG', async () => {
    const csv = Buffer.from('month,sales\njan,10\nfeb,14\nmar,9\n');
    const downloaded: Buffer[] = [];
    h = await startHarness(async (message) => {
      const attachment = message.attachments[0]!;
      downloaded.push(await downloadAll(h!.adapter, attachment, { maxBytes: 1024 * 1024 }));
      const png = await makePng(320, 200);
      const reply: Reply = {
        kind: 'answer',
        text: 'Sales peaked in February.',
        runs: [],
        images: [{ name: 'chart-1.png', mime: 'image/png', data: png, alt: 'Sales by month', width: 320, height: 200 }],
        files: [],
      };
      return reply;
    });
    const { fake, handler } = h;
    const att = fake.hostAttachment('../sales data.csv', csv, 'text/csv');
    const question = fake.userMessage({
      channelId: fake.textChannelId,
      content: `<@${fake.bot.id}> plot sales by month`,
      mentionBot: true,
      attachments: [att],
    });

    const threadId = String(question.id);
    const upload = await fake.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${threadId}/messages` && r.files.length > 0,
    );
    expect(handler.received[0]?.attachments[0]).toMatchObject({
      id: att.id,
      name: 'sales_data.csv',
      bytes: csv.length,
      mime: 'text/csv',
      url: att.url,
    });
    expect(downloaded[0]?.equals(csv)).toBe(true);
    expect(upload.json.content).toBe('Sales peaked in February.');
    expect(upload.files[0]).toMatchObject({ field: 'files[0]', filename: 'chart-1.png', contentType: 'image/png' });
    expect(upload.json.attachments[0]).toMatchObject({ id: 0, filename: 'chart-1.png', description: 'Sales by month' });
    const meta = await sharp(upload.files[0]!.data).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 320, height: 200 });
  });

  it('refuses an attachment over the size cap while streaming', async () => {
    h = await startHarness(() => ({ kind: 'answer', text: 'ok', runs: [], images: [], files: [] }));
    const big = h.fake.hostAttachment('big.bin', Buffer.alloc(300_000, 1), 'application/octet-stream');
    // the declared size lies (says small): the stream itself is capped
    await expect(
      downloadAll(h.adapter, { id: big.id, name: 'big.bin', url: big.url, bytes: 10 }, { maxBytes: 100_000 }),
    ).rejects.toMatchObject({ code: 'attachment_rejected' });
    const page = h.fake.hostAttachment('data.csv', Buffer.from('<html>login</html>'), 'text/html');
    await expect(
      h.adapter.download({ id: page.id, name: 'data.csv', url: page.url, mime: 'text/csv' }, { maxBytes: 100_000 }),
    ).rejects.toMatchObject({ code: 'attachment_rejected' });
  });
});
