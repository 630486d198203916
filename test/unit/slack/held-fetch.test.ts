import { WebClient, type FetchFunction } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { heldFetch, methodOf } from '../../../adapters/slack/held-fetch.js';
import { RateHolds } from '../../../src/replies/rate-holds.js';

type Answer = Awaited<ReturnType<FetchFunction>>;

/** Slack's side, recorded: the first call of `limited` answers 429 with Retry-After 1, everything else ok. */
function slackStub(limited: string): {
  fetch: FetchFunction;
  calls: { method: string; atMs: number; status: number }[];
} {
  const calls: { method: string; atMs: number; status: number }[] = [];
  let refused = false;
  const fetch: FetchFunction = async (url) => {
    const method = methodOf(String(url));
    const status = method === limited && !refused ? 429 : 200;
    if (status === 429) refused = true;
    calls.push({ method, atMs: Date.now(), status });
    const body = status === 429 ? { ok: false, error: 'ratelimited' } : { ok: true, ts: '1.2', channel: 'C1' };
    return new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '1' } : {}) },
    }) as unknown as Answer;
  };
  return { fetch, calls };
}

describe('Slack Web API calls held after a 429', () => {
  it('a 429 met by the status client holds the answer’s call to that method for Retry-After', async () => {
    const holds = new RateHolds();
    const slack = slackStub('chat.postMessage');
    const status = new WebClient('xoxb-t', {
      fetch: heldFetch({ holds, liveStatus: true, fetch: slack.fetch }),
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
    });
    const answers = new WebClient('xoxb-t', {
      fetch: heldFetch({ holds, fetch: slack.fetch }),
      retryConfig: { retries: 0 },
    });
    await expect(status.chat.postMessage({ channel: 'C1', text: 'status' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
    });
    // A second status write meets the hold: refused without reaching Slack.
    await expect(status.chat.postMessage({ channel: 'C1', text: 'status again' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
    });
    await answers.chat.update({ channel: 'C1', ts: '1.2', text: 'another method is not held' });
    await answers.chat.postMessage({ channel: 'C1', text: 'the answer' });
    const posts = slack.calls.filter((c) => c.method === 'chat.postMessage');
    expect(posts.map((c) => c.status)).toEqual([429, 200]);
    expect(posts[1]!.atMs - posts[0]!.atMs).toBeGreaterThanOrEqual(1000);
    const update = slack.calls.find((c) => c.method === 'chat.update')!;
    expect(update.atMs - posts[0]!.atMs).toBeLessThan(500);
  });

  it('does not add to the client’s own wait: its retry after Retry-After goes straight out', async () => {
    const holds = new RateHolds();
    const slack = slackStub('chat.postMessage');
    const client = new WebClient('xoxb-t', {
      fetch: heldFetch({ holds, fetch: slack.fetch }),
      retryConfig: { retries: 1, minTimeout: 0, maxTimeout: 0 },
    });
    await client.chat.postMessage({ channel: 'C1', text: 'retried by the client' });
    const [refused, retried] = slack.calls;
    expect([refused!.status, retried!.status]).toEqual([429, 200]);
    const gapMs = retried!.atMs - refused!.atMs;
    expect(gapMs).toBeGreaterThanOrEqual(1000);
    expect(gapMs).toBeLessThan(1400);
  });
});
