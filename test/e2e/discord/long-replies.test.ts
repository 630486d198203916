import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../fakes/fake-discord/index.js';
import { startHarness, type Harness } from './harness.js';

const fenceLines = (text: string) => text.split('\n').filter((l) => /^\s{0,3}```/.test(l)).length;

function fiveThousandChars(): string {
  const parts: string[] = ['# Results', ''];
  let i = 0;
  while (parts.join('\n').length < 4300)
    parts.push(
      `Paragraph ${++i}: the mean of column ${i} is ${(i * 1.37).toFixed(2)}, computed over every row of the table.`,
    );
  parts.push(
    '```python',
    ...Array.from({ length: 18 }, (_, k) => `value_${k} = df["col_${k}"].mean()  # step ${k}`),
    '```',
    'Done.',
  );
  return parts.join('\n');
}

describe('Discord: long replies, large files and rate limits', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  const answers = (fake: Harness['fake'], channelId: string): RecordedRequest[] =>
    fake.requests.filter(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${channelId}/messages` &&
        r.status === 200 &&
        !r.json?.components?.length,
    );

  it('splits a 5,000-character answer into messages of at most 2,000 characters with valid code fences', async () => {
    const text = fiveThousandChars();
    expect(text.length).toBeGreaterThan(5000);
    h = await startHarness(() => ({ kind: 'answer', text, runs: [], images: [], files: [] }));
    const { fake } = h;
    fake.userMessage({ channelId: fake.dmChannelId, content: 'summarise' });
    await fake.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${fake.dmChannelId}/messages` &&
        String(r.json?.content).includes('Done.'),
    );
    const chunks = answers(fake, fake.dmChannelId).map((r) => String(r.json.content));
    expect(chunks.length).toBe(3);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(2000);
      expect(fenceLines(chunk) % 2).toBe(0);
    }
    const rejoined = chunks.join('\n');
    for (const line of text.split('\n').filter((l) => l.trim() && !l.startsWith('```')))
      expect(rejoined).toContain(line);
  });

  it('a file Discord refuses with 413 (code 40005) is named in the thread with its size and the limit', async () => {
    // Discord's real limit (1 MiB here) is lower than the configured one (10 MiB): the upload is refused.
    h = await startHarness(
      () => ({
        kind: 'answer',
        text: 'Here is the export.',
        runs: [],
        images: [],
        files: [{ name: 'export.parquet', mime: 'application/octet-stream', data: Buffer.alloc(2 * 1024 * 1024, 7) }],
      }),
      { fakeUploadLimitBytes: 1024 * 1024 },
    );
    const { fake } = h;
    fake.userMessage({ channelId: fake.dmChannelId, content: 'export it' });
    const notice = await fake.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === `/channels/${fake.dmChannelId}/messages` &&
        String(r.json?.content).includes('export.parquet'),
    );
    expect(notice.json.content).toContain('too large');
    expect(notice.json.content).toContain('2.0 MB');
    expect(notice.json.content).toContain('10.0 MB');
    const refused = fake.requests.find((r) => r.status === 413);
    expect(refused?.files[0]?.filename).toBe('export.parquet');
    // the text of the refused message still arrived
    expect(answers(fake, fake.dmChannelId).some((r) => r.json.content === 'Here is the export.')).toBe(true);
  });

  it('a 429 is waited out and the message is delivered once', async () => {
    h = await startHarness(() => ({ kind: 'answer', text: 'after the rate limit', runs: [], images: [], files: [] }));
    const { fake } = h;
    fake.rateLimit({
      method: 'POST',
      path: new RegExp(`^/channels/${fake.dmChannelId}/messages$`),
      times: 2,
      retryAfterS: 0.3,
    });
    fake.userMessage({ channelId: fake.dmChannelId, content: 'go' });
    await fake.waitForRequest((r) => r.status === 200 && r.json?.content === 'after the rate limit');
    const posts = fake.requests.filter(
      (r) => r.method === 'POST' && r.path === `/channels/${fake.dmChannelId}/messages`,
    );
    expect(posts.filter((r) => r.status === 429)).toHaveLength(2);
    expect(posts.filter((r) => r.status === 200 && r.json?.content === 'after the rate limit')).toHaveLength(1);
  });
});
