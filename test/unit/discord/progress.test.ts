import { describe, expect, it } from 'vitest';
import { DiscordProgressSink } from '../../../adapters/discord/progress-sink.js';
import { foldProgress, initialStatus, renderStatus } from '../../../adapters/discord/progress-text.js';
import type { OutgoingMessage, ReplyTarget } from '../../../adapters/discord/target.js';
import type { ProgressEvent } from '../../../src/domain/progress-event.js';
import { createLogger } from '../../../src/logger.js';

function recordingTarget() {
  const calls: { op: string; id?: string; message?: Partial<OutgoingMessage> }[] = [];
  const target: ReplyTarget = {
    channelId: 'c',
    post: async (message) => {
      calls.push({ op: 'post', message });
      return 'status-1';
    },
    edit: async (id, message) => void calls.push({ op: 'edit', id, message }),
    remove: async (id) => void calls.push({ op: 'remove', id }),
    typing: async () => void calls.push({ op: 'typing' }),
  };
  return { target, calls };
}

const logger = createLogger({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Discord progress', () => {
  it('renders the latest state under 2,000 characters with balanced fences', () => {
    const events: ProgressEvent[] = [
      { type: 'thinking', round: 1 },
      { type: 'code', round: 1, language: 'python', code: 'x = 1\n'.repeat(500) + 'print("```")' },
      { type: 'output', stream: 'stdout', text: 'row\n'.repeat(1000) },
      { type: 'display', display: { data: {}, meta: { title: 'Sales' } } },
      { type: 'error', code: 'sandbox_timeout', message: 'E'.repeat(5000) },
    ];
    const state = events.reduce(foldProgress, initialStatus());
    const text = renderStatus(state);
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text.split('\n').filter((l) => l.startsWith('```')).length % 2).toBe(0);
    expect(text).toContain('📊 Chart: Sales');
  });

  it('posts one status with a Stop button, edits it at most once per throttle window, and removes it on close', async () => {
    const { target, calls } = recordingTarget();
    const sink = new DiscordProgressSink({
      target,
      threadKey: 'discord:g:c:t',
      logger,
      statusIsOriginal: false,
      throttleMs: 150,
      typingIntervalMs: 50,
    });
    for (let i = 1; i <= 30; i++) sink.update({ type: 'thinking', round: i });
    await sleep(400);
    const edits = calls.filter((c) => c.op === 'edit');
    expect(edits.length).toBeGreaterThanOrEqual(1);
    expect(edits.length).toBeLessThanOrEqual(2);
    expect(edits[edits.length - 1]?.message?.content).toContain('step 30');
    const post = calls.find((c) => c.op === 'post');
    expect((post?.message?.components as { components: { custom_id: string }[] }[])[0]!.components[0]!.custom_id).toBe(
      'threadlab_stop:discord:g:c:t',
    );
    expect(calls.filter((c) => c.op === 'typing').length).toBeGreaterThanOrEqual(3);
    await sink.close();
    const typingAfterClose = calls.filter((c) => c.op === 'typing').length;
    await sleep(120);
    expect(calls.filter((c) => c.op === 'typing').length).toBe(typingAfterClose);
    expect(calls[calls.length - 1]).toEqual({ op: 'remove', id: 'status-1' });
  });

  it('finish() waits for the first status write, so it cannot land after (and over) the answer', async () => {
    const order: string[] = [];
    const target: ReplyTarget = {
      channelId: 'c',
      post: async () => 'x',
      edit: async () => {
        await sleep(80);
        order.push('status written');
      },
      remove: async () => {},
      typing: async () => {},
    };
    const sink = new DiscordProgressSink({ target, threadKey: 'k', logger, statusIsOriginal: true });
    await sink.finish({ replied: true });
    order.push('answer posted');
    await sink.close();
    expect(order).toEqual(['status written', 'answer posted']);
  });

  it('for an interaction, shows the status in the deferred reply and leaves it to the reply', async () => {
    const { target, calls } = recordingTarget();
    const sink = new DiscordProgressSink({ target, threadKey: 'k', logger, statusIsOriginal: true, throttleMs: 10 });
    sink.update({ type: 'started' });
    await sleep(50);
    await sink.finish({ replied: true });
    sink.update({ type: 'thinking', round: 2 });
    await sink.close();
    expect(calls.every((c) => c.op === 'edit' && c.id === '@original')).toBe(true);
    expect(calls.some((c) => String(c.message?.content).includes('step 2'))).toBe(false);
  });
});
