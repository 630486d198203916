import sharp from 'sharp';
import { beforeEach, describe, expect, it } from 'vitest';
import { threadKey } from '../../../src/domain/thread-key.js';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import {
  appMention,
  BOT_USER_ID,
  buttonPress,
  CHANNEL_ID,
  FakeSlack,
  messageEvent,
  slashCommand,
} from '../../fakes/fake-slack/index.js';
import { answer, makePng, PNG_SIGNATURE, ScriptedHandler, type Mode } from './support.js';
import type { SlackTransport } from './transport.js';
import { useAdapterRig } from './adapter-rig.js';
import { downloadAll } from '../../support/download.js';

describe.each<Mode>(['http', 'socket'])('Slack adapter with bolt in %s mode against a fake Slack', (mode) => {
  const rig = useAdapterRig(mode);
  let fake: FakeSlack;
  let adapter: SlackAdapter;
  let handler: ScriptedHandler;
  let send: SlackTransport;
  beforeEach(() => ({ fake, adapter, handler, send } = rig));

  const repliesIn = (threadTs: string) => fake.state.messages.filter((m) => m.thread_ts === threadTs && !m.deleted);

  it('answers a mention in its thread, with the mention stripped and a status message cleaned up', async () => {
    handler.script = async (msg, { progress }) => {
      progress({ type: 'thinking', round: 1 });
      progress({ type: 'code', round: 1, language: 'python', code: 'print(6 * 7)' });
      await new Promise((r) => setTimeout(r, 400));
      return answer(`The answer is **${msg.text.length}** characters long.`);
    };
    const mention = appMention({ text: `<@${BOT_USER_ID}> how long is this?` });
    await send.event(mention);
    const reply = await fake.waitFor(() => repliesIn(mention.ts as string).find((m) => m.text.includes('The answer')), {
      what: 'the reply in the thread',
    });
    expect(handler.messages[0]!.text).toBe('how long is this?');
    expect(handler.messages[0]!.thread).toEqual({
      platform: 'slack',
      workspace: 'T0TEAM',
      channel: CHANNEL_ID,
      thread: mention.ts,
    });
    expect(reply.channel).toBe(CHANNEL_ID);
    expect(JSON.stringify(reply.blocks)).toContain('*17*');
    // the live status was a message in the same thread with a Stop button, then deleted
    const status = fake.state.messages.find(
      (m) => m.thread_ts === mention.ts && JSON.stringify(m.blocks).includes('threadlab_stop'),
    );
    expect(status).toBeDefined();
    await fake.waitFor(() => status!.deleted, { what: 'the status message to be deleted' });
  });

  it('downloads a shared CSV with the bot token and uploads a PNG chart into the same thread', async () => {
    const csv = Buffer.from('x,y\n1,2\n2,4\n3,9\n');
    const file = fake.addFile({ id: `F${mode.toUpperCase()}CSV`, name: 'sales.csv', mimetype: 'text/csv', data: csv });
    let downloaded: Buffer | undefined;
    handler.script = async (msg, { adapter: a }) => {
      downloaded = await downloadAll(a, msg.attachments[0]!, { maxBytes: 1024 * 1024 });
      return answer('Here is the chart.', {
        images: [{ name: 'chart.png', mime: 'image/png', data: await makePng(), alt: 'y against x' }],
      });
    };
    const mention = appMention({ text: `<@${BOT_USER_ID}> plot y against x`, files: [file as never] });
    await send.event(mention);
    const upload = await fake.waitFor(() => fake.state.uploads.find((u) => u.completed && u.filename === 'chart.png'), {
      what: 'the chart upload',
    });
    expect(downloaded?.equals(csv)).toBe(true);
    expect(handler.messages[0]!.attachments[0]).toMatchObject({
      name: 'sales.csv',
      mime: 'text/csv',
      bytes: csv.length,
    });
    expect(upload.channelId).toBe(CHANNEL_ID);
    expect(upload.threadTs).toBe(mention.ts);
    expect(upload.bytes!.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    const meta = await sharp(upload.bytes!).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 320, height: 200 });
  });

  it('runs `/interpreter run` with an ack well within 3 s and continues in a new thread', async () => {
    handler.acceptDelayMs = 3500; // accepting the message takes longer than Slack's ack window
    handler.script = async () => answer('42');
    const ack = await send.command(
      slashCommand({ text: 'run ```python\nprint(6 * 7)\n```', responseUrl: fake.responseUrl() }),
    );
    expect(ack.ackMs).toBeLessThan(3000);
    const msg = await fake.waitFor(() => handler.messages[0], { what: 'the command message' });
    expect(msg.command).toEqual({ name: 'run', language: 'python', code: 'print(6 * 7)' });
    const root = fake.state.messages.find((m) => m.ts === msg.thread.thread)!;
    expect(root.thread_ts).toBeUndefined();
    expect(root.channel).toBe(CHANNEL_ID);
    await fake.waitFor(() => repliesIn(root.ts).some((m) => m.text === '42'), {
      what: 'the answer in the command thread',
      timeoutMs: 10_000,
    });
    expect(handler.messages[0]!.receivedAtMs).toBeGreaterThan(0);
  });

  it('cancels the run when the Stop button is pressed', async () => {
    handler.script = async (_msg, { progress, cancelled }) => {
      progress({ type: 'code', round: 1, language: 'python', code: 'while True: pass' });
      await cancelled;
      return answer('Stopped.', { kind: 'notice' });
    };
    const mention = appMention({ text: `<@${BOT_USER_ID}> loop forever` });
    await send.event(mention);
    const status = await fake.waitFor(
      () =>
        fake.state.messages.find(
          (m) => m.thread_ts === mention.ts && JSON.stringify(m.blocks).includes('threadlab_stop'),
        ),
      {
        what: 'the status message',
      },
    );
    const key = threadKey({
      platform: 'slack',
      workspace: 'T0TEAM',
      channel: CHANNEL_ID,
      thread: mention.ts as string,
    });
    const button = (status.blocks as { elements?: { action_id: string; value: string }[] }[]).flatMap(
      (b) => b.elements ?? [],
    )[0]!;
    expect(button.value).toBe(key);
    await send.interaction(
      buttonPress({
        actionId: button.action_id,
        value: button.value,
        messageTs: status.ts,
        threadTs: mention.ts as string,
        responseUrl: fake.responseUrl(),
      }),
    );
    await fake.waitFor(() => handler.cancels.length > 0, { what: 'onCancel' });
    expect(handler.cancels).toEqual([key]);
    await fake.waitFor(() => repliesIn(mention.ts as string).some((m) => m.text === 'Stopped.'), {
      what: 'the stopped reply',
    });
  });

  it('survives a 429 with Retry-After on chat.postMessage', async () => {
    handler.script = async () => answer('after the rate limit');
    const mention = appMention({ text: `<@${BOT_USER_ID}> hello` });
    fake.failNext('chat.postMessage', { status: 429, retryAfterSec: 1 });
    await send.event(mention);
    await fake.waitFor(() => repliesIn(mention.ts as string).some((m) => m.text === 'after the rate limit'), {
      what: 'the reply after a 429',
    });
    const posts = fake.callsTo('chat.postMessage');
    const limited = posts.find((c) => c.status === 429)!;
    expect(limited).toBeDefined();
    const retried = posts.find((c) => c.status === 200 && c.atMs >= limited.atMs + 1000);
    expect(retried).toBeDefined(); // waited the Retry-After second before trying again
    expect(handler.errors).toEqual([]);
  });

  it('attaches a 40,000-character output as a file instead of truncating it', async () => {
    const output = Array.from({ length: 4000 }, (_, i) => `line ${String(i).padStart(4, '0')}`)
      .join('\n')
      .padEnd(40_000, '.');
    handler.script = async () => answer(`\`\`\`\n${output}\n\`\`\``);
    const mention = appMention({ text: `<@${BOT_USER_ID}> print a lot` });
    await send.event(mention);
    const upload = await fake.waitFor(() => fake.state.uploads.find((u) => u.completed && u.threadTs === mention.ts), {
      what: 'the attached output',
    });
    expect(upload.bytes!.toString('utf8')).toContain(output);
    for (const m of repliesIn(mention.ts as string)) {
      for (const b of m.blocks as { text?: { text: string } }[])
        expect((b.text?.text ?? '').length).toBeLessThanOrEqual(3000);
    }
  });

  it('continues a thread without a mention once the bot is in it, and ignores bots and edits', async () => {
    const mention = appMention({ text: `<@${BOT_USER_ID}> first` });
    await send.event(mention);
    await fake.waitFor(() => repliesIn(mention.ts as string).some((m) => m.text === 'ok'), { what: 'the first reply' });
    await send.event(
      messageEvent({ text: 'from a bot', thread_ts: mention.ts as string, bot_id: 'B0OTHER', subtype: 'bot_message' }),
    );
    await send.event(messageEvent({ text: 'edited', thread_ts: mention.ts as string, subtype: 'message_changed' }));
    await send.event(messageEvent({ text: 'and a follow-up', thread_ts: mention.ts as string }));
    await fake.waitFor(() => handler.messages.length === 2, { what: 'the follow-up' });
    expect(handler.messages[1]!.text).toBe('and a follow-up');
    expect(handler.messages[1]!.thread.thread).toBe(mention.ts);
  });

  it("after a restart, follows a thread it answered before (from Slack history) but not a stranger's thread", async () => {
    const mention = appMention({ text: `<@${BOT_USER_ID}> remember me` });
    await send.event(mention);
    await fake.waitFor(() => repliesIn(mention.ts as string).some((m) => m.text === 'ok'), { what: 'the first reply' });
    // A new adapter process knows no threads in memory.
    await adapter.stop();
    await rig.startAdapter(async () => answer('ok again'));
    ({ adapter, handler, send } = rig);
    const stranger = messageEvent({ text: 'people talking' });
    await send.event(messageEvent({ text: 'not for the bot', thread_ts: stranger.ts as string }));
    await send.event(messageEvent({ text: 'and a follow-up after restart', thread_ts: mention.ts as string }));
    await fake.waitFor(() => handler.messages.length === 1, { what: 'the follow-up after restart' });
    expect(handler.messages[0]!.text).toBe('and a follow-up after restart');
    expect(fake.callsTo('conversations.replies').length).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(handler.messages).toHaveLength(1);
  });

  it('looks up a file shared by id only with files.info, and rejects a login page served instead of a file', async () => {
    const data = Buffer.from('{"a": 1}');
    fake.addFile({ id: `FJSON${mode}`, name: 'data.json', mimetype: 'application/json', data });
    fake.addFile({
      id: `FLOGIN${mode}`,
      name: 'secret.xlsx',
      mimetype: 'application/vnd.ms-excel',
      data,
      serveLoginPage: true,
    });
    const results: unknown[] = [];
    handler.script = async (msg, { adapter: a }) => {
      for (const att of msg.attachments)
        results.push(await downloadAll(a, att, { maxBytes: 1024 }).catch((e: Error) => e));
      return answer('checked');
    };
    const idOnly = [{ id: `FJSON${mode}`, file_access: 'check_file_info' }];
    const login = fake.state.files.get(`FLOGIN${mode}`)!;
    const loginFile = {
      id: login.id,
      name: login.name,
      mimetype: login.mimetype,
      size: data.length,
      url_private_download: `${fake.baseUrl}/files/${login.id}/download/secret.xlsx`,
    };
    await send.event(appMention({ text: `<@${BOT_USER_ID}> read these`, files: [...idOnly, loginFile] as never }));
    await fake.waitFor(() => results.length === 2, { what: 'both downloads' });
    expect((results[0] as Buffer).equals(data)).toBe(true);
    expect(fake.callsTo('files.info').at(-1)!.args).toMatchObject({ file: `FJSON${mode}` });
    expect(results[1]).toMatchObject({ code: 'attachment_rejected' });
    expect((results[1] as Error).message).toContain('web page instead of `secret.xlsx`');
  });

  if (mode === 'socket') {
    it('reconnects when Slack asks for a refresh, acking every envelope', async () => {
      const before = fake.socket.connections;
      fake.socket.requestRefresh();
      await fake.waitFor(() => fake.socket.connections > before, { what: 'the reconnection' });
      await fake.socket.waitForConnection();
      const mention = appMention({ text: `<@${BOT_USER_ID}> still there?` });
      await send.event(mention);
      await fake.waitFor(() => repliesIn(mention.ts as string).some((m) => m.text === 'ok'), {
        what: 'the reply after reconnecting',
      });
      expect(fake.socket.acks.map((a) => a.envelope_id)).toEqual(fake.socket.envelopes.map((e) => e.envelope_id));
    });
  }

  it('answers direct messages without a mention, each in its own thread with the assistant status', async () => {
    handler.script = async (_msg, { progress }) => {
      progress({ type: 'thinking', round: 1 });
      await new Promise((r) => setTimeout(r, 300));
      return answer('dm answer');
    };
    const dm = messageEvent({ text: 'what is 2**10?', channel: `D0DM${mode}`, channel_type: 'im' });
    await send.event(dm);
    await fake.waitFor(() => repliesIn(dm.ts as string).some((m) => m.text === 'dm answer'), { what: 'the DM reply' });
    expect(handler.messages[0]!.text).toBe('what is 2**10?');
    // A top-level DM is a thread root of its own (agent_view): its status is Slack's, in its thread, not a message.
    const dmStatuses = fake.callsTo('assistant.threads.setStatus').filter((c) => c.args.thread_ts === dm.ts);
    expect(dmStatuses[0]?.args).toMatchObject({ channel_id: `D0DM${mode}`, status: 'is thinking…' });
    const stopMessages = fake.state.messages.filter(
      (m) => m.thread_ts === dm.ts && JSON.stringify(m.blocks).includes('threadlab_stop'),
    );
    expect(stopMessages).toEqual([]);

    const root = `${Math.floor(Date.now() / 1000)}.000777`;
    const inThread = messageEvent({ text: 'and 2**20?', channel: `D0DM${mode}`, channel_type: 'im', thread_ts: root });
    await send.event(inThread);
    await fake.waitFor(() => repliesIn(root).some((m) => m.text === 'dm answer'), {
      what: 'the assistant-thread reply',
    });
    // This thread's own clear: the first DM's thread clears its status too, and may do so first.
    await fake.waitFor(
      () => fake.callsTo('assistant.threads.setStatus').some((c) => c.args.thread_ts === root && c.args.status === ''),
      { what: 'the status cleared' },
    );
    const statuses = fake
      .callsTo('assistant.threads.setStatus')
      .map((c) => c.args)
      .filter((a) => a.thread_ts === root);
    expect(statuses[0]).toMatchObject({ channel_id: `D0DM${mode}`, thread_ts: root, status: 'is thinking…' });
    expect(statuses.at(-1)).toMatchObject({ status: '' });
    expect(
      fake.state.messages.filter((m) => m.thread_ts === root && JSON.stringify(m.blocks).includes('threadlab_stop')),
    ).toEqual([]);
  });

  it('runs a post once when Slack delivers it twice (a retry, or as app_mention and message)', async () => {
    const mention = appMention({ text: `<@${BOT_USER_ID}> once please` });
    await send.event(mention);
    await send.event(mention); // a redelivery: new event_id, same post
    await send.event({ ...messageEvent({ text: mention.text as string, ts: mention.ts as string }) });
    await fake.waitFor(() => repliesIn(mention.ts as string).some((m) => m.text === 'ok'), { what: 'the reply' });
    await new Promise((r) => setTimeout(r, 200));
    expect(handler.messages).toHaveLength(1);
    expect(repliesIn(mention.ts as string).filter((m) => m.text === 'ok')).toHaveLength(1);
  });

  it('answers `/interpreter reset|files|stop` privately with how to reach the thread, starting nothing', async () => {
    for (const word of ['reset', 'files', 'stop']) {
      const posted = fake.callsTo('chat.postMessage').length;
      const ack = await send.command(slashCommand({ text: word, responseUrl: fake.responseUrl() }));
      expect(ack.body).toMatchObject({ response_type: 'ephemeral' });
      expect(JSON.stringify(ack.body)).toContain(`send \`${word}\` as a message`);
      expect(fake.callsTo('chat.postMessage').length).toBe(posted);
    }
    expect(handler.messages).toHaveLength(0);
  });

  it('answers `/interpreter help` privately through the response_url', async () => {
    handler.script = async () => answer('Threadlab runs code.', { kind: 'notice' });
    const url = fake.responseUrl(`help-${mode}`);
    await send.command(slashCommand({ text: 'help', responseUrl: url }));
    const response = await fake.waitFor(() => fake.state.responses.find((r) => r.id === `help-${mode}`), {
      what: 'the ephemeral help',
    });
    expect(response.body).toMatchObject({ response_type: 'ephemeral', text: 'Threadlab runs code.' });
  });
});
