/**
 * The message shortcut "Run in Threadlab" through the real bolt adapter, in Socket Mode and HTTP mode, against
 * the fake Slack delivering real `message_action` payloads: acknowledged at once, the invoker named in the
 * message's thread, the message's code handed to the core as the invoker's run of another person's message, and
 * a channel the bot cannot post in answered through the shortcut's response_url.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { RUN_SHORTCUT_CALLBACK_ID } from '../../../adapters/slack/map-shortcut.js';
import {
  CHANNEL_ID,
  messageShortcut,
  nextTs,
  richText,
  richTextFallback,
  type FakeSlack,
} from '../../fakes/fake-slack/index.js';
import { useAdapterRig } from './adapter-rig.js';
import { answer, SIGNING_SECRET, type Mode, type ScriptedHandler } from './support.js';

const AUTHOR = 'U0AUTHOR1';
const INVOKER = 'U0INVOKE1';

describe.each<Mode>(['socket', 'http'])('Run in Threadlab (message shortcut) with bolt in %s mode', (mode) => {
  const rig = useAdapterRig(mode);
  let fake: FakeSlack;
  let adapter: SlackAdapter;
  let handler: ScriptedHandler;
  beforeEach(() => ({ fake, adapter, handler } = rig));

  const shortcut = (payload: Record<string, unknown>) =>
    fake.interact(
      payload,
      mode === 'http'
        ? { url: `http://127.0.0.1:${adapter.httpPort}/slack/events`, signingSecret: SIGNING_SECRET }
        : undefined,
    );

  it("runs another person's code blocks in that message's thread, as the invoker's request", async () => {
    handler.script = async (msg) => answer(`ran for ${msg.user.id}`);
    const parts = [{ text: 'Try this:' }, { code: 'python\nx = 6 * 7\nprint(x < 50 and x)' }];
    const ts = nextTs();
    const payload = messageShortcut({
      callbackId: RUN_SHORTCUT_CALLBACK_ID,
      message: { ts, user: AUTHOR, text: richTextFallback(parts), blocks: [richText(parts)] },
      userId: INVOKER,
      responseUrl: fake.responseUrl(`run-${mode}`),
    });
    const { ackMs, status } = await shortcut(payload);
    expect(ackMs).toBeLessThan(3000);
    if (mode === 'http') expect(status).toBe(200);
    const said = await fake.waitFor(
      () => fake.state.messages.find((m) => m.thread_ts === ts && m.text.includes('asked me to run')),
      { what: 'the line naming who asked' },
    );
    expect(said.text).toBe(`<@${INVOKER}> asked me to run the code of this message.`);
    await fake.waitFor(() => fake.state.messages.find((m) => m.thread_ts === ts && m.text.includes('ran for')), {
      what: 'the answer in the thread',
    });
    const inbound = handler.messages[0]!;
    expect(inbound.user.id).toBe(INVOKER);
    expect(inbound.thread).toEqual({ platform: 'slack', workspace: 'T0TEAM', channel: CHANNEL_ID, thread: ts });
    // The preformatted block, unescaped, its first line read as the fence's language.
    expect(inbound.command).toEqual({ name: 'runMessage', text: '```python\nx = 6 * 7\nprint(x < 50 and x)\n```' });
    expect(inbound.source).toEqual({ messageId: ts, authorId: AUTHOR });
  });

  it('reads the fences of a message without blocks (text decoded), in the thread the message is in', async () => {
    const root = nextTs();
    const ts = nextTs();
    const payload = messageShortcut({
      callbackId: RUN_SHORTCUT_CALLBACK_ID,
      message: { ts, thread_ts: root, user: AUTHOR, text: 'go:\n```print(1 &lt; 2)```' },
      userId: INVOKER,
      responseUrl: fake.responseUrl(`text-${mode}`),
    });
    await shortcut(payload);
    await fake.waitFor(() => handler.messages[0], { what: 'the run to reach the core' });
    expect(handler.messages[0]!.command).toEqual({ name: 'runMessage', text: 'go:\n```print(1 < 2)```' });
    expect(handler.messages[0]!.thread.thread).toBe(root);
  });

  it('a channel the bot is not in: the invoker is told privately how to invite it, and nothing runs', async () => {
    const secret = `C0SECRET${mode.toUpperCase()}`;
    fake.state.channelsWithoutBot.add(secret);
    const id = `secret-${mode}`;
    await shortcut(
      messageShortcut({
        callbackId: RUN_SHORTCUT_CALLBACK_ID,
        channel: secret,
        message: { user: AUTHOR, text: '```print(1)```' },
        userId: INVOKER,
        responseUrl: fake.responseUrl(id),
      }),
    );
    const response = await fake.waitFor(() => fake.state.responses.find((r) => r.id === id), {
      what: 'the private answer through response_url',
    });
    expect(response.body).toMatchObject({ response_type: 'ephemeral' });
    expect(JSON.stringify(response.body)).toContain('not_in_channel');
    expect(JSON.stringify(response.body)).toContain('/invite @Threadlab');
    await new Promise((r) => setTimeout(r, 300));
    expect(handler.messages).toHaveLength(0);
  });

  it('ignores another app’s shortcut callback', async () => {
    await shortcut(
      messageShortcut({
        callbackId: 'someone_elses',
        message: { user: AUTHOR, text: '```print(1)```' },
        responseUrl: fake.responseUrl(`other-${mode}`),
      }),
    ).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    expect(handler.messages).toHaveLength(0);
  });
});
