import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { SlackProgressSink } from '../../../adapters/slack/progress-sink.js';
import { createLogger } from '../../../src/logger.js';

const logger = createLogger({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A recording stand-in for the Web API client (no network); `fail` makes a method throw. */
function fakeClient(fail: Set<string> = new Set()) {
  const calls: { method: string; args: Record<string, unknown>; atMs: number }[] = [];
  const record = (method: string) => async (args: Record<string, unknown>) => {
    calls.push({ method, args, atMs: Date.now() });
    if (fail.has(method)) throw new Error(`${method} failed`);
    return { ok: true, ts: '111.222' };
  };
  const client = {
    chat: {
      postMessage: record('chat.postMessage'),
      update: record('chat.update'),
      delete: record('chat.delete'),
      startStream: record('chat.startStream'),
      appendStream: record('chat.appendStream'),
      stopStream: record('chat.stopStream'),
    },
    assistant: { threads: { setStatus: record('assistant.threads.setStatus') } },
  } as unknown as WebClient;
  return { client, calls };
}

const base = { channel: 'C1', threadTs: '100.1', threadKey: 'slack:T1:C1:100.1', logger };

describe('SlackProgressSink', () => {
  it('posts one status message with a Stop button, then updates it in place, throttled', async () => {
    const { client, calls } = fakeClient();
    const sink = new SlackProgressSink({ ...base, client, minIntervalMs: 100 });
    sink.update({ type: 'thinking', round: 1 });
    for (let i = 0; i < 30; i += 1) {
      sink.update({ type: 'output', stream: 'stdout', text: `line ${i}\n` });
      await sleep(10);
    }
    sink.update({ type: 'code', round: 1, language: 'python', code: 'print("hi")' });
    await sleep(250);
    const posts = calls.filter((c) => c.method === 'chat.postMessage');
    const updates = calls.filter((c) => c.method === 'chat.update');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.args).toMatchObject({ channel: 'C1', thread_ts: '100.1' });
    expect(JSON.stringify(posts[0]!.args.blocks)).toContain('"action_id":"threadlab_stop"');
    expect(JSON.stringify(posts[0]!.args.blocks)).toContain('"value":"slack:T1:C1:100.1"');
    // 32 events over ~550 ms: one post, then at most one write per 100 ms
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates.length).toBeLessThanOrEqual(6);
    expect(JSON.stringify(updates.at(-1)!.args.blocks)).toContain('print(\\"hi\\")');
    const writes = [...posts, ...updates].map((c) => c.atMs);
    for (let i = 1; i < writes.length; i += 1) expect(writes[i]! - writes[i - 1]!).toBeGreaterThanOrEqual(90);
    await sink.close();
    expect(calls.at(-1)).toMatchObject({ method: 'chat.delete', args: { channel: 'C1', ts: '111.222' } });
  });

  it('shows the tail of the output', async () => {
    const { client, calls } = fakeClient();
    const sink = new SlackProgressSink({ ...base, client, minIntervalMs: 10 });
    sink.update({
      type: 'output',
      stream: 'stdout',
      text: Array.from({ length: 100 }, (_, i) => `row ${i}`).join('\n'),
    });
    await sleep(50);
    const shown = JSON.stringify(calls[0]!.args.blocks);
    expect(shown).toContain('row 99');
    expect(shown).not.toContain('row 50\\n');
    await sink.close();
  });

  it('uses the assistant-thread status and a stream where they are supported, and ends both on close', async () => {
    const { client, calls } = fakeClient();
    const sink = new SlackProgressSink({ ...base, client, assistant: true, minIntervalMs: 10 });
    sink.update({ type: 'code', round: 1, language: 'python', code: 'x' });
    await sleep(50);
    await sink.close();
    expect(calls.map((c) => c.method)).toEqual([
      'assistant.threads.setStatus',
      'chat.startStream',
      'chat.stopStream',
      'assistant.threads.setStatus',
    ]);
    expect(calls[0]!.args).toMatchObject({ channel_id: 'C1', thread_ts: '100.1', status: 'is running python…' });
    expect(calls[1]!.args).toMatchObject({ channel: 'C1', thread_ts: '100.1', task_display_mode: 'timeline' });
    expect(calls[2]!.args).toMatchObject({ channel: 'C1', ts: '111.222' });
    // The run never finished: its card ends as stopped rather than spinning.
    expect(calls[2]!.args.chunks).toEqual([expect.objectContaining({ id: 'run-1', status: 'error' })]);
    expect(calls[3]!.args).toMatchObject({ status: '' });
  });

  it('falls back to a status message when the assistant status is refused', async () => {
    const { client, calls } = fakeClient(new Set(['assistant.threads.setStatus']));
    let unsupported = 0;
    const sink = new SlackProgressSink({
      ...base,
      client,
      assistant: true,
      minIntervalMs: 10,
      onAssistantUnsupported: () => (unsupported += 1),
    });
    sink.update({ type: 'thinking', round: 1 });
    await sleep(50);
    expect(calls.map((c) => c.method)).toEqual(['assistant.threads.setStatus', 'chat.postMessage']);
    expect(unsupported).toBe(1);
    await sink.close();
  });

  it('reports a stream refused when the run ended before the first card was sent, and shows nothing more', async () => {
    const { client, calls } = fakeClient(new Set(['chat.startStream']));
    const refused: string[] = [];
    const sink = new SlackProgressSink({
      ...base,
      client,
      assistant: true,
      minIntervalMs: 60_000,
      onAssistantUnsupported: (_err, method) => refused.push(method),
    });
    sink.update({ type: 'thinking', round: 1 });
    await sleep(30); // the first write: the status only, no card yet; the next may not come for a minute
    sink.update({ type: 'code', round: 1, language: 'python', code: 'print(1)' });
    await sink.finish();
    expect(refused).toEqual(['chat.startStream']);
    await sink.close();
    expect(calls.map((c) => c.method)).toEqual([
      'assistant.threads.setStatus',
      'chat.startStream',
      'assistant.threads.setStatus',
    ]);
  });

  it('never throws when Slack fails, and finalises the message without a button when it cannot delete it', async () => {
    const { client, calls } = fakeClient(new Set(['chat.delete']));
    const sink = new SlackProgressSink({ ...base, client, minIntervalMs: 10 });
    sink.update({ type: 'error', code: 'sandbox_timeout', message: 'Timed out' });
    await sleep(50);
    await sink.close();
    sink.update({ type: 'thinking', round: 2 }); // after close: ignored
    await sleep(30);
    expect(calls.map((c) => c.method)).toEqual(['chat.postMessage', 'chat.delete', 'chat.update']);
    expect(JSON.stringify(calls[2]!.args.blocks)).not.toContain('threadlab_stop');
  });

  it('posts nothing when closed before the first write', async () => {
    const { client, calls } = fakeClient();
    const sink = new SlackProgressSink({ ...base, client, minIntervalMs: 10 });
    sink.update({ type: 'text', delta: 'ignored' });
    await sink.close();
    await sleep(30);
    expect(calls).toEqual([]);
  });
});
