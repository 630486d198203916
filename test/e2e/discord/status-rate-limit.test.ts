/**
 * A rate-limited status write must not outlive its job: @discordjs/rest would sleep through Retry-After
 * (ignoring any AbortSignal), then post or edit a status that is deleted right away. Status writes are
 * refused, not held, by a rate limit. They share the bot's buckets: a 429 on the status edit's bucket does
 * not delay the answer (another bucket), one on the thread's messages holds the answer until its reset.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { textReply } from '../../../src/domain/reply.js';
import type { RecordedRequest } from '../../fakes/fake-discord/index.js';
import { startHarness, type Harness } from './harness.js';

const RETRY_AFTER_S = 3;

describe('Discord status writes refused with 429 and Retry-After', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  const pastRetryAfter = () => new Promise((r) => setTimeout(r, RETRY_AFTER_S * 1000 + 1500));
  const isStatusPost = (r: RecordedRequest, channel: string) =>
    r.method === 'POST' && r.path === `/channels/${channel}/messages` && r.json?.components?.length > 0;
  /** Everything sent to the thread after `atMs`. */
  const sentAfter = (threadId: string, atMs: number) =>
    h!.fake.requests
      .filter((r) => r.atMs > atMs && r.path.startsWith(`/channels/${threadId}/`))
      .map((r) => `${r.method} ${r.path} ${r.status}`);

  /**
   * Rate-limits the first status write of `method` on `path`, and answers as soon as it was refused.
   * Resolves with the thread, when the 429 was sent and the answer's request.
   */
  async function answerAfterRefusal(method: 'POST' | 'PATCH', path: RegExp) {
    let refusedAtMs = 0;
    const text = `answer after a refused ${method}`;
    h = await startHarness(async () => {
      refusedAtMs = (await h!.fake.waitForRequest((r) => r.method === method && r.status === 429)).atMs;
      return textReply(text);
    });
    const { fake } = h;
    fake.rateLimit({ method, path, retryAfterS: RETRY_AFTER_S });
    const question = fake.userMessage({
      channelId: fake.textChannelId,
      content: `<@${fake.bot.id}> go`,
      mentionBot: true,
    });
    const threadId = String(question.id);
    const answer = await fake.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/channels/${threadId}/messages` && r.json?.content === text,
    );
    return { threadId, refusedAtMs, answer };
  }

  it('an edit refused while the job runs delays neither the answer nor is sent after it', async () => {
    const { threadId, refusedAtMs, answer } = await answerAfterRefusal('PATCH', /^\/channels\/\d+\/messages\/\d+$/);
    expect(answer.atMs - refusedAtMs).toBeLessThan(1000);
    expect(h!.fake.requests.find((r) => isStatusPost(r, threadId))?.status).toBe(200);
    await pastRetryAfter();
    // Only the status message's removal follows the answer: no edit, no post, no typing.
    const after = sentAfter(threadId, answer.atMs);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatch(/^DELETE \/channels\/\d+\/messages\/\d+ 204$/);
    const edits = h!.fake.requests.filter((r) => r.method === 'PATCH' && r.path.startsWith(`/channels/${threadId}/`));
    expect(edits.map((r) => r.status)).toEqual([429]);
  }, 20_000);

  it('a first status post refused is not posted late, and the answer into its bucket waits for the reset', async () => {
    const { threadId, refusedAtMs, answer } = await answerAfterRefusal('POST', /^\/channels\/\d+\/messages$/);
    expect(answer.status).toBe(200);
    expect(answer.atMs - refusedAtMs).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000);
    await pastRetryAfter();
    expect(sentAfter(threadId, answer.atMs)).toEqual([]);
    expect(h!.fake.requests.filter((r) => isStatusPost(r, threadId)).map((r) => r.status)).toEqual([429]);
  }, 20_000);
});
