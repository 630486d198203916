/**
 * A rate-limited status write must not outlive its job: once the answer is being posted, the status is
 * neither posted nor edited again (no flicker, no wasted calls), only removed.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { appMention, BOT_USER_ID, FakeSlack, type FakeSlackCall } from '../../fakes/fake-slack/index.js';
import { isProgress } from '../roles/slack-thread.js';
import { answer, ScriptedHandler } from './support.js';
import type { SlackTransport } from './transport.js';
import { useAdapterRig } from './adapter-rig.js';

const RETRY_AFTER_SEC = 2;

describe('Slack status writes refused with 429 and Retry-After', () => {
  const rig = useAdapterRig('socket');
  let fake: FakeSlack;
  let handler: ScriptedHandler;
  let send: SlackTransport;
  beforeEach(() => ({ fake, handler, send } = rig));

  /** Status calls into thread `ts` (posts with the Stop block, and updates of the status message). */
  const statusCalls = (ts: string, statusTs?: string): FakeSlackCall[] =>
    fake.state.calls.filter(
      (c) =>
        (c.method === 'chat.postMessage' && c.args.thread_ts === ts && isProgress(c)) ||
        (c.method === 'chat.update' && statusTs !== undefined && c.args.ts === statusTs),
    );
  const answerPost = (ts: string, text: string) =>
    fake.waitFor(
      () =>
        fake.state.calls.find(
          (c) => c.method === 'chat.postMessage' && c.args.thread_ts === ts && String(c.args.text).includes(text),
        ),
      { what: 'the answer', timeoutMs: 15_000 },
    );
  /** Waits past the Retry-After, so a deferred retry would have been sent by now. */
  const pastRetryAfter = () => new Promise((r) => setTimeout(r, RETRY_AFTER_SEC * 1000 + 1500));

  it('an update refused while the job runs is not sent after the answer; the status is deleted once', async () => {
    handler.script = async (_msg, { progress }) => {
      await fake.waitFor(
        () => fake.state.messages.find((m) => JSON.stringify(m.blocks).includes('threadlab_progress')),
        {
          what: 'the status message',
        },
      );
      fake.failNext('chat.update', { status: 429, retryAfterSec: RETRY_AFTER_SEC });
      progress({ type: 'code', round: 1, language: 'python', code: 'print("refused update")' });
      await fake.waitFor(() => fake.callsTo('chat.update').some((c) => c.status === 429), { what: 'the 429' });
      return answer('rate-limited update answer');
    };
    const mention = appMention({ text: `<@${BOT_USER_ID}> go` });
    await send.event(mention);
    const ts = mention.ts as string;
    const posted = await answerPost(ts, 'rate-limited update answer');
    await pastRetryAfter();
    const status = fake.state.messages.find(
      (m) => m.thread_ts === ts && JSON.stringify(m.blocks).includes('threadlab_progress'),
    )!;
    const late = statusCalls(ts, status.ts).filter((c) => c.atMs >= posted.atMs);
    expect(late.map((c) => `${c.method} ${c.status}`)).toEqual([]);
    expect(fake.callsTo('chat.update').filter((c) => c.args.ts === status.ts)).toHaveLength(1); // the refused one
    expect(status.deleted).toBe(true);
    expect(fake.callsTo('chat.delete').filter((c) => c.args.ts === status.ts)).toHaveLength(1);
  });

  it('while the job still runs, a refused update is written after Retry-After with the latest state', async () => {
    const updatesOf = (statusTs: string) => fake.callsTo('chat.update').filter((c) => c.args.ts === statusTs);
    let statusTs = '';
    handler.script = async (msg, { progress }) => {
      const status = await fake.waitFor(
        () =>
          fake.state.messages.find(
            (m) => m.thread_ts === msg.thread.thread && JSON.stringify(m.blocks).includes('threadlab_progress'),
          ),
        { what: 'the status message' },
      );
      statusTs = status.ts;
      fake.failNext('chat.update', { status: 429, retryAfterSec: RETRY_AFTER_SEC });
      progress({ type: 'code', round: 1, language: 'python', code: 'print("first")' });
      await fake.waitFor(() => updatesOf(statusTs).some((c) => c.status === 429), { what: 'the 429' });
      progress({ type: 'code', round: 2, language: 'python', code: 'print("latest")' });
      await fake.waitFor(() => updatesOf(statusTs).some((c) => c.status === 200), {
        what: 'the update after Retry-After',
        timeoutMs: RETRY_AFTER_SEC * 1000 + 3000,
      });
      return answer('slow job answer');
    };
    const mention = appMention({ text: `<@${BOT_USER_ID}> go` });
    await send.event(mention);
    await answerPost(mention.ts as string, 'slow job answer');
    const [refused, written, ...more] = updatesOf(statusTs);
    expect(refused!.status).toBe(429);
    expect(written!.status).toBe(200);
    expect(more).toEqual([]);
    expect(written!.atMs - refused!.atMs).toBeGreaterThanOrEqual(RETRY_AFTER_SEC * 1000 - 50);
    expect(JSON.stringify(written!.args.blocks)).toContain('latest');
  });

  it('a status post refused before the answer is never posted afterwards', async () => {
    fake.failNext('chat.postMessage', { status: 429, retryAfterSec: RETRY_AFTER_SEC });
    handler.script = async () => {
      await fake.waitFor(() => fake.callsTo('chat.postMessage').some((c) => c.status === 429), { what: 'the 429' });
      return answer('rate-limited post answer');
    };
    const mention = appMention({ text: `<@${BOT_USER_ID}> go` });
    await send.event(mention);
    const ts = mention.ts as string;
    const posted = await answerPost(ts, 'rate-limited post answer');
    await pastRetryAfter();
    const statusPosts = statusCalls(ts);
    expect(statusPosts.map((c) => c.status)).toEqual([429]); // tried once, refused, never again
    expect(statusPosts.every((c) => c.atMs < posted.atMs)).toBe(true);
    expect(fake.state.messages.filter((m) => m.thread_ts === ts && !m.deleted)).toHaveLength(1); // the answer
  });
});
