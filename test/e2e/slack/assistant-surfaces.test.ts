/**
 * Slack's AI app surfaces through the real bolt and web-api clients against the fake Slack: suggested
 * prompts when an assistant thread starts, the assistant status and a native stream with one task card
 * per code run in an assistant thread, the fallback to the updated status message when the workspace
 * lacks a method (decided once, logged once), and Slack's native Stop.
 */
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { SUGGESTED_PROMPTS } from '../../../adapters/slack/assistant-listeners.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { createLogger } from '../../../src/logger.js';
import {
  agentSessionStopped,
  assistantThreadStarted,
  buttonPress,
  FakeSlack,
  messageEvent,
  nextTs,
  TEAM_ID,
  type FakeSlackCall,
} from '../../fakes/fake-slack/index.js';
import { answer, ScriptedHandler, startAdapter, type Mode, type Script } from './support.js';
import { SlackTransport } from './transport.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STREAM_METHODS = new Set(['chat.startStream', 'chat.appendStream', 'chat.stopStream']);

/** Two code runs, the second failing, with output, paced past the status interval. */
const twoRuns: Script = async (_msg, { progress }) => {
  progress({ type: 'thinking', round: 1 });
  await sleep(200);
  progress({ type: 'code', round: 1, language: 'python', code: 'print(6 * 7)' });
  await sleep(200);
  progress({ type: 'output', stream: 'stdout', text: '42\n' });
  progress({ type: 'run_finished', status: 'ok', durationMs: 120 });
  await sleep(200);
  progress({ type: 'code', round: 2, language: 'python', code: '1 / 0' });
  await sleep(200);
  progress({ type: 'run_finished', status: 'error', durationMs: 80 });
  await sleep(200);
  return answer('streamed answer');
};

describe.each<Mode>(['socket', 'http'])('Slack assistant surfaces in %s mode', (mode) => {
  let fake: FakeSlack;
  let adapter: SlackAdapter;
  let handler: ScriptedHandler;
  let send: SlackTransport;
  let logLines: Record<string, unknown>[];

  beforeAll(async () => {
    fake = await new FakeSlack().start();
  });
  afterAll(async () => {
    await fake.stop();
  });
  beforeEach(async () => {
    fake.state.unsupported.clear();
    logLines = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) logLines.push(JSON.parse(line));
        done();
      },
    });
    handler = new ScriptedHandler(twoRuns);
    adapter = await startAdapter(fake, mode, handler, {
      logger: createLogger({ level: 'info', destination }),
      progressIntervalMs: 100,
    });
    handler.adapter = adapter;
    send = new SlackTransport(fake, adapter, mode);
  });
  afterEach(async () => {
    await adapter.stop();
  });

  const channelFor = (name: string) => `D0${name.toUpperCase()}${mode.toUpperCase()}`;
  const callsIn = (channel: string): FakeSlackCall[] =>
    fake.state.calls.filter((c) => c.args.channel === channel || c.args.channel_id === channel);
  const answerPosted = (channel: string, root: string) =>
    fake.waitFor(
      () =>
        fake.state.calls.find(
          (c) =>
            c.method === 'chat.postMessage' &&
            c.args.channel === channel &&
            c.args.thread_ts === root &&
            c.args.text === 'streamed answer',
        ),
      { what: 'the answer', timeoutMs: 15_000 },
    );
  const statusMessages = (channel: string, root: string) =>
    fake.state.messages.filter(
      (m) => m.channel === channel && m.thread_ts === root && JSON.stringify(m.blocks).includes('threadlab_stop'),
    );

  it('a new assistant thread gets the suggested prompts', async () => {
    const channel = channelFor('prompts');
    const started = assistantThreadStarted({ channel });
    await send.event(started);
    const set = await fake.waitFor(() => fake.state.suggestedPrompts.find((p) => p.channel === channel), {
      what: 'the suggested prompts',
    });
    expect(set.threadTs).toBe((started.assistant_thread as { thread_ts: string }).thread_ts);
    expect(set.title).toBe(SUGGESTED_PROMPTS.title);
    expect(set.prompts).toEqual(SUGGESTED_PROMPTS.prompts);
  });

  it('streams one task card per code run in order (start, appends, stop) before the answer, with the status', async () => {
    const channel = channelFor('stream');
    const root = nextTs();
    await send.event(messageEvent({ text: 'compute', channel, channel_type: 'im', thread_ts: root }));
    const posted = await answerPosted(channel, root);

    const stream = fake.state.streams.find((s) => s.channel === channel)!;
    expect(stream).toMatchObject({
      threadTs: root,
      recipientTeamId: TEAM_ID,
      taskDisplayMode: 'timeline',
      streaming: false,
    });
    const calls = callsIn(channel).filter((c) => STREAM_METHODS.has(c.method));
    const methods = calls.map((c) => c.method);
    expect(methods[0]).toBe('chat.startStream');
    expect(methods.at(-1)).toBe('chat.stopStream');
    expect(methods.slice(1, -1).every((m) => m === 'chat.appendStream')).toBe(true);
    expect(methods.filter((m) => m === 'chat.stopStream')).toHaveLength(1);
    expect(calls[0]!.args).toMatchObject({ channel, thread_ts: root, recipient_team_id: TEAM_ID });
    expect(calls.slice(1).every((c) => c.args.channel === channel && c.args.ts === stream.ts)).toBe(true);
    expect(calls.every((c) => c.status === 200 && c.atMs <= posted.atMs)).toBe(true); // the timeline ends before the answer

    // One card per code run, each ending in its run's outcome.
    const tasks = stream.chunks.filter((c) => c.type === 'task_update');
    const ids = [...new Set(tasks.map((t) => t.id))];
    expect(ids).toEqual(['run-1', 'run-2']);
    const last = (id: string) => tasks.filter((t) => t.id === id).at(-1)!;
    expect(last('run-1')).toMatchObject({ status: 'complete', details: 'print(6 * 7)', output: '42\n' });
    expect(last('run-2')).toMatchObject({ status: 'error', details: '1 / 0' });
    expect(tasks.find((t) => t.id === 'run-1')!.status).toBe('in_progress'); // shown while it ran

    const statuses = fake.state.assistantStatuses.filter((s) => s.channel === channel);
    expect(statuses[0]).toMatchObject({ threadTs: root, status: 'is thinking…' });
    await fake.waitFor(() => fake.state.assistantStatuses.filter((s) => s.channel === channel).at(-1)?.status === '', {
      what: 'the status cleared',
    });
    expect(statusMessages(channel, root)).toEqual([]); // no Stop-button message where the surfaces work
  });

  for (const lacking of [
    { method: 'chat.startStream', error: 'unknown_method' as const },
    { method: 'assistant.threads.setStatus', error: 'missing_scope' as const },
  ]) {
    it(`falls back to the updated status message when ${lacking.method} answers ${lacking.error}, once per workspace`, async () => {
      fake.withoutMethod(lacking.method, lacking.error);
      const channel = channelFor(`fb${lacking.error.slice(0, 4)}`);
      const first = nextTs();
      await send.event(messageEvent({ text: 'compute', channel, channel_type: 'im', thread_ts: first }));
      await answerPosted(channel, first);
      const status = fake.state.messages.find(
        (m) => m.channel === channel && m.thread_ts === first && JSON.stringify(m.blocks).includes('threadlab_stop'),
      );
      expect(status, 'the status message with its Stop button').toBeDefined();
      expect(
        fake.state.calls.filter((c) => c.method === 'chat.update' && c.args.ts === status!.ts).length,
      ).toBeGreaterThan(0);
      const refusals = callsIn(channel).filter((c) => c.method === lacking.method);
      expect(refusals).toHaveLength(1);
      const decided = logLines.filter((l) =>
        String(l.msg).includes('slack assistant surfaces unavailable in this workspace'),
      );
      expect(decided).toHaveLength(1);
      expect(decided[0]).toMatchObject({ workspace: TEAM_ID, method: lacking.method, error: lacking.error });

      // Remembered: the next assistant thread of the workspace does not ask again.
      const second = nextTs();
      const before = fake.state.calls.length;
      await send.event(messageEvent({ text: 'again', channel, channel_type: 'im', thread_ts: second }));
      await answerPosted(channel, second);
      const later = fake.state.calls.slice(before);
      expect(later.filter((c) => STREAM_METHODS.has(c.method) || c.method.startsWith('assistant.'))).toEqual([]);
      expect(statusMessages(channel, second)).toHaveLength(1); // the updated message, with its Stop button
      expect(
        logLines.filter((l) => String(l.msg).includes('slack assistant surfaces unavailable in this workspace')),
      ).toHaveLength(1);
    });
  }

  it("Slack's native Stop (agent_session_stopped) stops the thread's job; the stream Slack ended is left alone", async () => {
    const channel = channelFor('stop');
    const root = nextTs();
    handler.script = async (_msg, { progress, cancelled }) => {
      progress({ type: 'code', round: 1, language: 'python', code: 'import time; time.sleep(60)' });
      await cancelled;
      progress({ type: 'run_finished', status: 'killed', durationMs: 900 });
      await sleep(300); // past the status interval: the card's last state is tried
      return answer('stopped by you');
    };
    await send.event(messageEvent({ text: 'sleep', channel, channel_type: 'im', thread_ts: root }));
    const stream = await fake.waitFor(() => fake.state.streams.find((s) => s.channel === channel), {
      what: 'the stream started',
    });
    const stoppedAt = fake.state.calls.length;
    const ended = fake.stopStreamsIn(channel, root); // what Slack does on its Stop button
    expect(ended).toEqual([stream.ts]);
    await send.event(agentSessionStopped({ channel, thread_ts: root, streaming_message_ts: ended }));
    await fake.waitFor(() => handler.cancels.length > 0, { what: 'the cancel' });
    expect(handler.cancels).toEqual([threadKey({ platform: 'slack', workspace: TEAM_ID, channel, thread: root })]);
    await fake.waitFor(() => fake.state.messages.some((m) => m.thread_ts === root && m.text === 'stopped by you'), {
      what: 'the answer',
    });
    // One append was refused (message_not_in_streaming_state); nothing more was sent to that stream.
    const after = fake.state.calls.slice(stoppedAt).filter((c) => STREAM_METHODS.has(c.method));
    expect(after.map((c) => c.method)).toEqual(['chat.appendStream']);
    expect(statusMessages(channel, root)).toEqual([]);
  });

  it('in the fallback, the status message keeps its Stop button, and pressing it stops the job', async () => {
    fake.withoutMethod('chat.startStream', 'not_allowed');
    const channel = channelFor('fbstop');
    const root = nextTs();
    handler.script = async (_msg, { progress, cancelled }) => {
      progress({ type: 'code', round: 1, language: 'python', code: 'while True: pass' });
      await cancelled;
      return answer('stopped by the button');
    };
    await send.event(messageEvent({ text: 'loop', channel, channel_type: 'im', thread_ts: root }));
    const status = await fake.waitFor(() => statusMessages(channel, root)[0], { what: 'the status message' });
    const button = (status.blocks as { elements?: { action_id: string; value: string }[] }[]).flatMap(
      (b) => b.elements ?? [],
    )[0]!;
    await send.interaction(
      buttonPress({
        actionId: button.action_id,
        value: button.value,
        channel,
        messageTs: status.ts,
        threadTs: root,
        responseUrl: fake.responseUrl(),
      }),
    );
    await fake.waitFor(() => handler.cancels.length > 0, { what: 'the cancel' });
    expect(handler.cancels).toEqual([threadKey({ platform: 'slack', workspace: TEAM_ID, channel, thread: root })]);
  });

  it('a stream write refused with 429 is sent after Retry-After, and nothing is sent after the stream stopped', async () => {
    const channel = channelFor('ratelimit');
    const root = nextTs();
    fake.failNext('chat.appendStream', { status: 429, retryAfterSec: 1 });
    handler.script = async (_msg, { progress }) => {
      progress({ type: 'code', round: 1, language: 'python', code: 'print(1)' });
      await fake.waitFor(() => fake.state.streams.find((s) => s.channel === channel), { what: 'the stream' });
      progress({ type: 'run_finished', status: 'ok', durationMs: 5 });
      await fake.waitFor(
        () => fake.callsTo('chat.appendStream').some((c) => c.args.channel === channel && c.status === 429),
        {
          what: 'the 429',
        },
      );
      progress({ type: 'code', round: 2, language: 'python', code: 'print(2)' });
      await fake.waitFor(
        () => fake.callsTo('chat.appendStream').some((c) => c.args.channel === channel && c.status === 200),
        { what: 'the append after Retry-After', timeoutMs: 5000 },
      );
      return answer('streamed answer');
    };
    await send.event(messageEvent({ text: 'rate', channel, channel_type: 'im', thread_ts: root }));
    const posted = await answerPosted(channel, root);
    const appends = fake.callsTo('chat.appendStream').filter((c) => c.args.channel === channel);
    expect(appends.map((c) => c.status)).toEqual([429, 200]);
    expect(appends[1]!.atMs - appends[0]!.atMs).toBeGreaterThanOrEqual(950);
    // The refused cards went out again with the latest state: run 1 complete, run 2 started.
    expect((appends[1]!.args.chunks as { id: string; status: string }[]).map((c) => [c.id, c.status])).toEqual([
      ['run-1', 'complete'],
      ['run-2', 'in_progress'],
    ]);
    await sleep(1500);
    const late = fake.state.calls.filter(
      (c) => STREAM_METHODS.has(c.method) && c.args.channel === channel && c.atMs > posted.atMs,
    );
    expect(late).toEqual([]);
  });
});
