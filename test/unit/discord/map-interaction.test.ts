import { ChatInputCommandInteraction, Client, Partials } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { parseStopButtonId, stopButtonId, toCommandMessage } from '../../../adapters/discord/map-interaction.js';
import { commandDefinitions } from '../../../adapters/discord/commands.js';
import { viewFromCommand } from '../../../adapters/discord/views.js';
import { threadKey } from '../../../src/domain/thread-key.js';
import { ada, BOT_ID, BOT_THREAD_ID, GUILD_ID, offlineClient, TEXT_ID } from './recorded.js';

/** An INTERACTION_CREATE payload of /run as Discord sends it. */
const runPayload = (channel: Record<string, unknown>, guild = true) => ({
  id: '1180000000000007000',
  application_id: BOT_ID,
  type: 2,
  data: {
    id: '1180000000000006000',
    name: 'run',
    type: 1,
    options: [
      { name: 'code', type: 3, value: 'import sys; print(sys.version)' },
      { name: 'language', type: 3, value: 'python' },
    ],
  },
  ...(guild
    ? {
        guild_id: GUILD_ID,
        member: {
          user: ada,
          roles: [],
          permissions: '1071698660929',
          joined_at: '2026-11-01T10:00:00.000000+00:00',
          deaf: false,
          mute: false,
          flags: 0,
        },
      }
    : { user: ada }),
  channel,
  channel_id: channel.id,
  token: 'aW50ZXJhY3Rpb246MTE4MDAwMDAwMDAwMDAwNzAwMDp0b2tlbg',
  version: 1,
  app_permissions: '1071698660929',
  locale: 'en-GB',
  guild_locale: 'en-US',
  entitlements: [],
  authorizing_integration_owners: { '0': GUILD_ID },
  context: guild ? 0 : 1,
  attachment_size_limit: 26214400,
});

function interaction(client: Client, payload: ReturnType<typeof runPayload>): ChatInputCommandInteraction {
  // The constructor is internal to discord.js; the gateway handler calls it exactly like this.
  const Ctor = ChatInputCommandInteraction as unknown as new (c: Client, data: unknown) => ChatInputCommandInteraction;
  return new Ctor(client, payload);
}

describe('Discord slash command mapping (recorded payloads through discord.js)', () => {
  it('/run in a thread keys the session by that thread and carries what a worker needs to answer', () => {
    const client = offlineClient();
    const msg = toCommandMessage(
      viewFromCommand(interaction(client, runPayload({ id: BOT_THREAD_ID, type: 11, parent_id: TEXT_ID }))),
    );
    expect(msg).toMatchObject({
      id: 'discord:interaction:1180000000000007000',
      thread: { platform: 'discord', workspace: GUILD_ID, channel: TEXT_ID, thread: BOT_THREAD_ID },
      user: { id: ada.id, name: 'Ada L.' },
      command: { name: 'run', language: 'python', code: 'import sys; print(sys.version)' },
      text: 'import sys; print(sys.version)',
      replyContext: {
        kind: 'interaction',
        channelId: BOT_THREAD_ID,
        applicationId: BOT_ID,
        interactionToken: 'aW50ZXJhY3Rpb246MTE4MDAwMDAwMDAwMDAwNzAwMDp0b2tlbg',
        attachmentSizeLimit: 26214400,
      },
    });
  });

  it('/run in a text channel uses a channel-wide session; in a DM the DM channel', () => {
    const client = offlineClient();
    const inChannel = toCommandMessage(viewFromCommand(interaction(client, runPayload({ id: TEXT_ID, type: 0 }))));
    expect(inChannel?.thread).toEqual({ platform: 'discord', workspace: GUILD_ID, channel: TEXT_ID, thread: TEXT_ID });
    const dmClient = new Client({ intents: [], partials: [Partials.Channel] });
    const inDm = toCommandMessage(
      viewFromCommand(interaction(dmClient, runPayload({ id: '1180000000000000050', type: 1 }, false))),
    );
    expect(inDm?.thread).toEqual({
      platform: 'discord',
      workspace: 'dm',
      channel: '1180000000000000050',
      thread: '1180000000000000050',
    });
  });

  it('maps /reset /files /help, defaults /run to python and ignores unknown commands', () => {
    const base = {
      id: '1',
      token: 't',
      applicationId: BOT_ID,
      options: {},
      guildId: null,
      channel: { id: 'c', type: 1, parentId: null },
      user: { id: 'u', name: 'u', bot: false },
      createdAtMs: 0,
    };
    expect(toCommandMessage({ ...base, commandName: 'reset' })?.command).toEqual({ name: 'reset' });
    expect(toCommandMessage({ ...base, commandName: 'files' })?.command).toEqual({ name: 'files' });
    expect(toCommandMessage({ ...base, commandName: 'help' })?.command).toEqual({ name: 'help' });
    expect(toCommandMessage({ ...base, commandName: 'run', options: { code: 'ls' } })?.command).toEqual({
      name: 'run',
      language: 'python',
      code: 'ls',
    });
    expect(toCommandMessage({ ...base, commandName: 'nope' })).toBeUndefined();
    expect(toCommandMessage({ ...base, commandName: 'help' })?.replyContext?.attachmentSizeLimit).toBeNull();
  });

  it('Stop button ids round-trip the thread key and fit in 100 characters', () => {
    const key = threadKey({
      platform: 'discord',
      workspace: '11800000000000000101',
      channel: '11800000000000000201',
      thread: '11800000000000000301',
    });
    const id = stopButtonId(key);
    expect(id.length).toBeLessThanOrEqual(100);
    expect(parseStopButtonId(id)).toBe(key);
    expect(parseStopButtonId('other:button')).toBeUndefined();
  });

  it('/run takes R and JavaScript; a language Discord did not offer runs as python', () => {
    const client = offlineClient();
    const language = (value: string) => {
      const payload = runPayload({ id: BOT_THREAD_ID, type: 11, parent_id: TEXT_ID });
      payload.data.options[1]!.value = value;
      return toCommandMessage(viewFromCommand(interaction(client, payload)))?.command;
    };
    expect(language('r')).toMatchObject({ name: 'run', language: 'r' });
    expect(language('javascript')).toMatchObject({ name: 'run', language: 'javascript' });
    expect(language('cobol')).toMatchObject({ name: 'run', language: 'python' });
  });

  it('defines /run (code, language python|bash|r|javascript|sql), /ask, /reset, /files, /help and the message command Run code', () => {
    const defs = commandDefinitions();
    expect(defs.map((d) => d.name)).toEqual([
      'run',
      'ask',
      'reset',
      'files',
      'help',
      'usage',
      'schedule',
      'export',
      'Run code',
    ]);
    // A message command (type 3): Discord shows it under Apps on every message, and it takes no options.
    expect(defs[8]).toMatchObject({ name: 'Run code', type: 3 });
    const run = defs[0]! as { options?: { name: string }[] };
    expect(run.options?.map((o: { name: string }) => o.name)).toEqual(['code', 'language']);
    expect((run.options?.[1] as { choices?: { value: string }[] }).choices?.map((c) => c.value)).toEqual([
      'python',
      'bash',
      'r',
      'javascript',
      'sql',
    ]);
  });
});
