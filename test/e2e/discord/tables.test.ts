import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../fakes/fake-discord/index.js';
import { frameReply } from '../../support/table-frames.js';
import { startHarness, type Harness } from './harness.js';

// Issue 18, real tables: the Reply buildReply makes of a DataFrame display, sent by discord.js's REST client.
describe('Discord: a DataFrame as aligned monospace', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  const tableMessage = (fake: Harness['fake'], channelId: string) =>
    fake.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${channelId}/messages` &&
        String(r.json?.content ?? '').includes('Table 1:'),
    );
  const allPosts = (fake: Harness['fake'], channelId: string): RecordedRequest[] =>
    fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages`);

  it('10,000 rows: the first rows within 2,000 characters, and every row as a CSV attachment', async () => {
    h = await startHarness(() => frameReply(10_000));
    const { fake } = h;
    fake.userMessage({ channelId: fake.dmChannelId, content: 'show the frame' });
    const msg = await tableMessage(fake, fake.dmChannelId);
    const content = String(msg.json.content);
    expect(content.length).toBeLessThanOrEqual(2000);
    const lines = /```\n([\s\S]*?)\n```/.exec(content)![1]!.split('\n');
    expect(lines[0]).toMatch(/^\s*n\s+sq\s+name$/);
    expect(lines[2]).toMatch(/^\s*0\s+0\s+r0$/);
    const shown = lines.length - 2;
    expect(shown).toBeGreaterThan(30);
    expect(content).toContain(
      `Table 1: 10,000 rows × 3 columns, showing the first ${shown} rows; every row is in \`table-1.csv\`.`,
    );
    const upload = await fake.waitForRequest(
      (r) => r.method === 'POST' && r.files.some((f) => f.filename === 'table-1.csv'),
    );
    const csv = upload.files.find((f) => f.filename === 'table-1.csv')!.data.toString('utf8');
    expect(csv.trimEnd().split('\n')).toHaveLength(10_001);
    expect(csv.trimEnd().split('\n')[10_000]).toBe('9999,99980001,r9999');
  });

  it('100 rows the sandbox sent whole but that pass 2,000 characters: a CSV made from them', async () => {
    h = await startHarness(() => frameReply(100, { namePad: 30 }));
    const { fake } = h;
    fake.userMessage({ channelId: fake.dmChannelId, content: 'hundred' });
    const msg = await tableMessage(fake, fake.dmChannelId);
    expect(String(msg.json.content).length).toBeLessThanOrEqual(2000);
    expect(String(msg.json.content)).toMatch(
      /Table 1: 100 rows × 3 columns, showing the first \d+ rows; every row is in `table-1.csv`\./,
    );
    const file = msg.files.find((f) => f.filename === 'table-1.csv')!;
    const rows = file.data.toString('utf8').trimEnd().split('\r\n');
    expect(rows).toHaveLength(101);
    expect(rows[100]).toBe(`99,9801,r99${'_'.repeat(30)}`);
  });

  it('a small frame: the whole table in the message, no CSV', async () => {
    h = await startHarness(() => frameReply(12));
    const { fake } = h;
    fake.userMessage({ channelId: fake.dmChannelId, content: 'small' });
    const msg = await tableMessage(fake, fake.dmChannelId);
    const content = String(msg.json.content);
    expect(content).toContain('Table 1: 12 rows × 3 columns.');
    expect(/```\n([\s\S]*?)\n```/.exec(content)![1]!.split('\n')).toHaveLength(14);
    await new Promise((r) => setTimeout(r, 300));
    expect(allPosts(fake, fake.dmChannelId).some((r) => r.files.length > 0)).toBe(false);
  });
});
