/**
 * User installs, the fenced /run option and the modals, on payloads shaped as Discord's docs show them
 * (interactions/receiving-and-responding: "Authorizing Integration Owners Object"; components/reference: "File
 * Upload", its modal submit example), through discord.js's own interaction classes where a view reads them.
 */
import { ChatInputCommandInteraction, ModalSubmitInteraction, type Client } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { unfenceCode } from '../../../adapters/discord/code-option.js';
import { commandDefinitions } from '../../../adapters/discord/commands.js';
import { botIsPresent, modalWanted, toCommandMessage } from '../../../adapters/discord/map-interaction.js';
import { MODAL_MAX_FILES, modalFor, parseModalId, toModalMessage } from '../../../adapters/discord/modal.js';
import { viewFromCommand, viewFromModal } from '../../../adapters/discord/views.js';
import { ada, BOT_ID, GUILD_ID, offlineClient, TEXT_ID } from './recorded.js';

/** A server the bot is not in: ada installed the app to her account and uses it there. */
const OTHER_GUILD = '1180000000000000900';
const OTHER_CHANNEL = '1180000000000000901';
const GROUP_DM = '1180000000000000902';

const member = {
  user: ada,
  roles: [],
  permissions: '1071698660929',
  joined_at: '2026-11-01T10:00:00.000000+00:00',
  deaf: false,
  mute: false,
  flags: 0,
};

function base(where: 'own-guild' | 'user-install-guild' | 'group-dm' | 'bot-dm'): Record<string, unknown> {
  const common = {
    id: '1180000000000007100',
    application_id: BOT_ID,
    token: 'aW50ZXJhY3Rpb246dXNlci1pbnN0YWxs',
    version: 1,
    app_permissions: '0',
    locale: 'en-GB',
    entitlements: [],
    attachment_size_limit: 10485760,
  };
  switch (where) {
    case 'own-guild':
      return {
        ...common,
        guild_id: GUILD_ID,
        member,
        channel: { id: TEXT_ID, type: 0 },
        channel_id: TEXT_ID,
        authorizing_integration_owners: { '0': GUILD_ID },
        context: 0,
      };
    case 'user-install-guild':
      return {
        ...common,
        guild_id: OTHER_GUILD,
        member,
        channel: { id: OTHER_CHANNEL, type: 0, guild_id: OTHER_GUILD, name: 'elsewhere' },
        channel_id: OTHER_CHANNEL,
        authorizing_integration_owners: { '1': ada.id },
        context: 0,
      };
    case 'group-dm':
      return {
        ...common,
        user: ada,
        channel: { id: GROUP_DM, type: 3, recipients: [ada] },
        channel_id: GROUP_DM,
        authorizing_integration_owners: { '1': ada.id },
        context: 2,
      };
    case 'bot-dm':
      return {
        ...common,
        user: ada,
        channel: { id: '1180000000000000050', type: 1 },
        channel_id: '1180000000000000050',
        authorizing_integration_owners: { '0': '0', '1': ada.id },
        context: 1,
      };
  }
}

function slash(client: Client, where: Parameters<typeof base>[0], name: string, options: unknown[] = []) {
  const Ctor = ChatInputCommandInteraction as unknown as new (c: Client, d: unknown) => ChatInputCommandInteraction;
  return new Ctor(client, { ...base(where), type: 2, data: { id: '1180000000000006100', name, type: 1, options } });
}

describe('where the bot is (authorizing_integration_owners and context)', () => {
  it('a user install in a server the bot is not in, and a group DM, are answered through the webhook only', () => {
    const client = offlineClient();
    const code = [{ name: 'code', type: 3, value: 'print(1)' }];
    const away = toCommandMessage(viewFromCommand(slash(client, 'user-install-guild', 'run', code)));
    expect(away?.replyContext).toMatchObject({ kind: 'interaction', webhookOnly: true, channelId: OTHER_CHANNEL });
    expect(away?.thread).toMatchObject({ workspace: OTHER_GUILD, thread: OTHER_CHANNEL });
    const group = toCommandMessage(viewFromCommand(slash(client, 'group-dm', 'run', code)));
    expect(group?.replyContext).toMatchObject({ webhookOnly: true });
    expect(group?.thread).toMatchObject({ workspace: 'dm', thread: GROUP_DM });
  });

  it('the own server and the bot DM keep the bot token as fallback', () => {
    const client = offlineClient();
    for (const where of ['own-guild', 'bot-dm'] as const) {
      const msg = toCommandMessage(viewFromCommand(slash(client, where, 'files')));
      expect(msg?.replyContext?.webhookOnly).toBeUndefined();
    }
    // Old payloads with no owners at all: the bot is taken to be there, as before.
    expect(botIsPresent({ guildId: GUILD_ID, owners: {} })).toBe(true);
    expect(botIsPresent({ guildId: GUILD_ID, owners: { guild: GUILD_ID, user: ada.id } })).toBe(true);
  });

  it('global commands are installable to servers and users and usable in guilds, bot DMs and private channels', () => {
    const defs = commandDefinitions() as unknown as {
      name: string;
      integration_types?: number[];
      contexts?: number[];
    }[];
    const run = defs.find((d) => d.name === 'run')!;
    expect(run).toMatchObject({ integration_types: [0, 1], contexts: [0, 1, 2] });
    expect(defs.find((d) => d.name === 'ask')).toMatchObject({ integration_types: [0, 1], contexts: [0, 1, 2] });
    // Those that act later without an interaction need the bot: a server install only.
    expect(defs.find((d) => d.name === 'schedule')).toMatchObject({ integration_types: [0], contexts: [0, 1] });
    expect(defs.find((d) => d.name === 'Run code')).toMatchObject({ integration_types: [0], contexts: [0, 1] });
    const guild = commandDefinitions({ scope: 'guild' }) as unknown as Record<string, unknown>[];
    expect(guild.every((d) => !('integration_types' in d) && !('contexts' in d))).toBe(true);
  });
});

describe("/run's code option without its fence", () => {
  it('a one-line fence with a language tag runs its body in that language', () => {
    expect(unfenceCode('```python print(6*7)```')).toEqual({ code: 'print(6*7)', language: 'python' });
    expect(unfenceCode(' ```bash echo hi``` ')).toEqual({ code: 'echo hi', language: 'bash' });
    expect(unfenceCode('```js console.log(1)```')).toEqual({ code: 'console.log(1)', language: 'javascript' });
  });

  it('a first word that names no language is code', () => {
    expect(unfenceCode('```print(6*7)```')).toEqual({ code: 'print(6*7)' });
    expect(unfenceCode('```import math; print(math.pi)```')).toEqual({ code: 'import math; print(math.pi)' });
    expect(unfenceCode('`print(2)`')).toEqual({ code: 'print(2)' });
  });

  it('a multi-line fenced block, and unfenced code untouched', () => {
    expect(unfenceCode('```py\nx = 6\nprint(x * 7)\n```')).toEqual({ code: 'x = 6\nprint(x * 7)', language: 'python' });
    expect(unfenceCode('```\nprint(1)\n```')).toEqual({ code: 'print(1)' });
    expect(unfenceCode('print("```")')).toEqual({ code: 'print("```")' });
  });

  it('through discord.js: the language option wins, else the tag, else python', () => {
    const client = offlineClient();
    const run = (options: unknown[]) => toCommandMessage(viewFromCommand(slash(client, 'own-guild', 'run', options)));
    expect(run([{ name: 'code', type: 3, value: '```python print(6*7)```' }])?.command).toEqual({
      name: 'run',
      language: 'python',
      code: 'print(6*7)',
    });
    expect(run([{ name: 'code', type: 3, value: '```sh ls```' }])?.command).toMatchObject({ language: 'bash' });
    expect(
      run([
        { name: 'code', type: 3, value: '```sh ls```' },
        { name: 'language', type: 3, value: 'python' },
      ])?.command,
    ).toMatchObject({ language: 'python', code: 'ls' });
  });
});

/** A MODAL_SUBMIT interaction as the components reference shows it: Labels (18) around a Text Input (4) and a File Upload (19). */
function modalPayload(o: {
  customId: string;
  text: string;
  files: Record<string, unknown>[];
}): Record<string, unknown> {
  return {
    ...base('user-install-guild'),
    type: 5,
    data: {
      custom_id: o.customId,
      components: [
        { type: 18, id: 1, component: { type: 4, id: 2, custom_id: 'text', value: o.text } },
        { type: 18, id: 3, component: { type: 19, id: 4, custom_id: 'files', values: o.files.map((f) => f.id) } },
      ],
      resolved: { attachments: Object.fromEntries(o.files.map((f) => [f.id, f])) },
    },
  };
}

const upload = (i: number, filename = `part${i}.csv`) => ({
  id: String(1180000000000008000n + BigInt(i)),
  filename,
  size: 120,
  url: `https://cdn.discordapp.com/ephemeral-attachments/2/${i}/${encodeURIComponent(filename)}?ex=1`,
  proxy_url: `https://media.discordapp.net/ephemeral-attachments/2/${i}/x`,
  content_type: 'text/csv',
  ephemeral: true,
});

function submit(client: Client, payload: Record<string, unknown>) {
  const Ctor = ModalSubmitInteraction as unknown as new (c: Client, d: unknown) => ModalSubmitInteraction;
  return new Ctor(client, payload);
}

describe('modals: /run without code and /ask without a question', () => {
  it('open a modal with a multi-line text input and a File Upload of up to 10 files, each in a Label', () => {
    expect(modalWanted({ commandName: 'run', options: {} })).toBe('run');
    expect(modalWanted({ commandName: 'run', options: { code: '  ' } })).toBe('run');
    expect(modalWanted({ commandName: 'ask', options: {} })).toBe('ask');
    expect(modalWanted({ commandName: 'ask', options: { question: 'why?' } })).toBeUndefined();
    const modal = modalFor({ kind: 'run', language: 'bash' }) as unknown as {
      custom_id: string;
      components: { type: number; component: Record<string, unknown> }[];
    };
    expect(parseModalId(modal.custom_id)).toEqual({ kind: 'run', language: 'bash' });
    expect(modal.components.map((c) => [c.type, c.component.type])).toEqual([
      [18, 4],
      [18, 19],
    ]);
    expect(modal.components[0]!.component).toMatchObject({ style: 2, max_length: 4000 });
    expect(modal.components[1]!.component).toMatchObject({ min_values: 0, max_values: 10, required: false });
  });

  it('a submitted run modal runs its program with the uploaded files, names made safe', () => {
    const client = offlineClient();
    const program = 'import csv\nrows = list(csv.reader(open("sales.csv")))\nprint(len(rows))';
    const payload = modalPayload({
      customId: 'threadlab_modal:run',
      text: `\`\`\`python\n${program}\n\`\`\``,
      files: [upload(1, 'sales.csv'), upload(2, '../../etc/passwd;rm -rf')],
    });
    const mapped = toModalMessage(viewFromModal(submit(client, payload)));
    expect(mapped.ok).toBe(true);
    if (!mapped.ok) return;
    expect(mapped.message.command).toEqual({ name: 'run', language: 'python', code: program });
    expect(mapped.message.attachments.map((a) => a.name)).toEqual(['sales.csv', 'passwd_rm_-rf']);
    expect(mapped.message.attachments[0]).toMatchObject({ bytes: 120, mime: 'text/csv' });
    expect(mapped.message.replyContext).toMatchObject({ webhookOnly: true, interactionId: '1180000000000007100' });
  });

  it('an ask modal is a question with files', () => {
    const client = offlineClient();
    const payload = modalPayload({
      customId: 'threadlab_modal:ask',
      text: ' Which month sold most?\n',
      files: [upload(3)],
    });
    const mapped = toModalMessage(viewFromModal(submit(client, payload)));
    expect(mapped).toMatchObject({
      ok: true,
      message: { text: 'Which month sold most?', attachments: [{ name: 'part3.csv' }] },
    });
    if (mapped.ok) expect(mapped.message.command).toBeUndefined();
  });

  it('refuses 11 files, a file with no http URL, text over 4,000 characters and a modal not ours', () => {
    const client = offlineClient();
    const eleven = Array.from({ length: MODAL_MAX_FILES + 1 }, (_, i) => upload(i + 10));
    const tooMany = toModalMessage(
      viewFromModal(submit(client, modalPayload({ customId: 'threadlab_modal:ask', text: 'q', files: eleven }))),
    );
    expect(tooMany).toEqual({ ok: false, problem: '11 files were sent; a form takes at most 10.' });
    const hostile = { ...upload(30), url: 'file:///etc/shadow' };
    const bad = toModalMessage(
      viewFromModal(submit(client, modalPayload({ customId: 'threadlab_modal:ask', text: 'q', files: [hostile] }))),
    );
    expect(bad.ok).toBe(false);
    const long = toModalMessage(
      viewFromModal(
        submit(client, modalPayload({ customId: 'threadlab_modal:ask', text: 'x'.repeat(4001), files: [] })),
      ),
    );
    expect(long).toMatchObject({ ok: false, problem: expect.stringContaining('over 4000 characters') });
    const foreign = toModalMessage(
      viewFromModal(submit(client, modalPayload({ customId: 'someone_else', text: 'q', files: [] }))),
    );
    expect(foreign.ok).toBe(false);
  });
});
