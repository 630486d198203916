/**
 * Approvals nobody answers do not hold worker slots (issue 26, item 1), in the shipped process (`threadlab start`,
 * web chat), with the in-process queue and with BullMQ on Redis: THREADLAB_APPROVAL=ask and THREADLAB_CONCURRENCY=2,
 * two questions whose code waits for Run, and a third thread's own fenced `print` answers at once (before parking it
 * waited until the approvals were skipped, 20.7 s in the issue). Then Run on one parked turn runs its code and the
 * answer follows, and Stop on the other ends it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeRunCode, fakeSay, type ChatRequestBody, type FakeReply } from '../../fakes/fake-openai-server.js';
import { startPrivateRedis, type PrivateRedis } from '../../support/redis-server.js';
import { waitUntil } from '../roles/processes.js';
import { ShippedBot } from '../shipped/shipped-bot.js';
import { WebClientForTests } from '../shipped/web-client.js';

/** Long enough that an answer inside it can only come from a free slot, never from the approvals timing out. */
const APPROVAL_TIMEOUT_MS = 60_000;
/** How soon the third thread's own print must answer: far under the approval timeout. */
const PROMPT_MS = 5000;

let redis: PrivateRedis;

beforeAll(async () => {
  redis = await startPrivateRedis();
}, 120_000);

afterAll(async () => {
  await redis?.stop();
}, 60_000);

/** The text of a message's content, whatever its shape (a string or parts). */
const textOf = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));

/**
 * The model of every thread: first it asks to print a line naming the question, then, given the result, says what it
 * saw. Decided per request from the conversation, since the threads' requests interleave.
 */
function model(body: ChatRequestBody): FakeReply {
  const last = body.messages.at(-1);
  if (last?.role === 'tool') return fakeSay(`The code said: ${textOf(last.content).slice(0, 200)}`);
  const question = textOf(body.messages.filter((m) => m.role === 'user').at(-1)?.content);
  const tag = /question (\w+)/.exec(question)?.[1] ?? 'unknown';
  return fakeRunCode(`print("approved ${tag}")`);
}

describe.each([
  { queue: 'in-process', env: (): Record<string, string> => ({}) },
  { queue: 'BullMQ', env: (): Record<string, string> => ({ REDIS_URL: redis.url }) },
])('approvals waiting do not hold worker slots, $queue queue', ({ queue, env }) => {
  const bot = new ShippedBot({ web: true });
  const web = new WebClientForTests(() => bot.webUrl);

  afterAll(async () => {
    await bot.cleanup();
  }, 60_000);

  const approvals = async (thread: string): Promise<Array<{ approvalId: string; code: string }>> => {
    const res = await fetch(`${bot.webUrl}/api/threads/${thread}/approvals`);
    if (res.status !== 200) throw new Error(`GET approvals answered ${res.status}`);
    return ((await res.json()) as { approvals: Array<{ approvalId: string; code: string }> }).approvals;
  };
  const botAnswer = async (thread: string, pattern: RegExp, timeoutMs: number) => {
    try {
      return await waitUntil(
        async () => (await web.messages(thread)).find((m) => m.role === 'bot' && pattern.test(m.text)),
        { timeoutMs, what: `an answer matching ${String(pattern)} in web thread ${thread}`, intervalMs: 50 },
      );
    } catch (err) {
      const seen = (await web.messages(thread)).map((m) => `${m.role}: ${m.text}`).join('\n');
      throw new Error(`${(err as Error).message}; the thread has:\n${seen}`);
    }
  };

  it('two parked approvals, a third thread answers promptly; Run completes one, Stop ends the other', async () => {
    await bot.start({
      ...env(),
      THREADLAB_APPROVAL: 'ask',
      THREADLAB_APPROVAL_TIMEOUT_MS: String(APPROVAL_TIMEOUT_MS),
      THREADLAB_CONCURRENCY: '2',
      THREADLAB_USER_MAX_CONCURRENT: '10',
    });
    bot.llm.push(...Array.from({ length: 8 }, () => model));
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => web.createThread()));
    await web.post(first!, { text: 'question one: print a line' });
    await web.post(second!, { text: 'question two: print a line' });
    const [waitingOne, waitingTwo] = await Promise.all(
      [first!, second!].map((thread) =>
        waitUntil(async () => (await approvals(thread))[0], {
          timeoutMs: 90_000,
          what: `the approval waiting in web thread ${thread}`,
          intervalMs: 100,
        }),
      ),
    );
    expect(waitingOne!.code).toContain('approved one');
    expect(waitingTwo!.code).toContain('approved two');

    // Both slots' turns wait for a person: the third thread's own code runs now, not when the approvals time out.
    const sentAt = Date.now();
    await web.post(third!, { text: '```python\nprint("third thread ran")\n```' });
    await botAnswer(third!, /third thread ran/, APPROVAL_TIMEOUT_MS);
    const answeredMs = Date.now() - sentAt;
    console.log(
      `[parking, ${queue} queue] the third thread's print answered in ${answeredMs} ms with two approvals waiting`,
    );
    expect(answeredMs).toBeLessThan(PROMPT_MS);

    // Run on the first: the parked turn takes a slot back, runs its code, and the model answers with the output.
    const pressed = await fetch(`${bot.webUrl}/api/threads/${first!}/approvals/${waitingOne!.approvalId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'run' }),
    });
    expect(pressed.status).toBe(200);
    await botAnswer(first!, /The code said:[\s\S]*approved one/, 30_000);

    // Stop on the second: the parked turn ends at once, its code never runs.
    const stopAt = Date.now();
    const stopped = await fetch(`${bot.webUrl}/api/threads/${second!}/stop`, { method: 'POST' });
    expect(stopped.status).toBe(202);
    await botAnswer(second!, /^Stopped at your request\.[\s\S]*No code had run/, 15_000);
    expect(Date.now() - stopAt).toBeLessThan(PROMPT_MS);
    expect(await approvals(second!)).toEqual([]);
    const secondToolResults = bot.llm.requests
      .flatMap((r) => r.body.messages)
      .filter((m) => m.role === 'tool' && textOf(m.content).includes('approved two'));
    expect(secondToolResults).toEqual([]);
  });
});

describe('past THREADLAB_MAX_PARKED (0: never park), in-process queue', () => {
  const bot = new ShippedBot({ web: true });
  const web = new WebClientForTests(() => bot.webUrl);
  /** Short, since here the third thread waits for it. */
  const timeoutMs = 6000;

  afterAll(async () => {
    await bot.cleanup();
  }, 60_000);

  it('waiting turns keep their slots: the third thread runs only once an approval is skipped at its time limit', async () => {
    await bot.start({
      THREADLAB_APPROVAL: 'ask',
      THREADLAB_APPROVAL_TIMEOUT_MS: String(timeoutMs),
      THREADLAB_CONCURRENCY: '2',
      THREADLAB_MAX_PARKED: '0',
      THREADLAB_USER_MAX_CONCURRENT: '10',
    });
    bot.llm.push(...Array.from({ length: 8 }, () => model));
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => web.createThread()));
    const askedAt = Date.now();
    await web.post(first!, { text: 'question one: print a line' });
    await web.post(second!, { text: 'question two: print a line' });
    for (const thread of [first!, second!]) {
      await waitUntil(
        async () => {
          const res = await fetch(`${bot.webUrl}/api/threads/${thread}/approvals`);
          return ((await res.json()) as { approvals: unknown[] }).approvals.length > 0;
        },
        { timeoutMs: 90_000, what: `the approval waiting in web thread ${thread}`, intervalMs: 100 },
      );
    }
    await web.post(third!, { text: '```python\nprint("third thread ran")\n```' });
    await waitUntil(
      async () => (await web.messages(third!)).find((m) => m.role === 'bot' && m.text.includes('third thread ran')),
      { timeoutMs: 60_000, what: 'the third thread to answer', intervalMs: 50 },
    );
    const waitedMs = Date.now() - askedAt;
    console.log(
      `[parking off] the third thread's print answered ${waitedMs} ms after the questions (timeout ${timeoutMs} ms)`,
    );
    expect(waitedMs).toBeGreaterThanOrEqual(timeoutMs);
  });
});
