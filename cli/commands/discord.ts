import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../src/config/index.js';
import { registerCommands } from '../../adapters/discord/index.js';

export const discordCommand: Command = {
  name: 'discord',
  usage: `Usage: threadlab discord register [--guild ID]

Registers Threadlab's commands (/run, /ask, /reset, /files, /help, /usage, /schedule, /export and the
message command Run code) for the application in DISCORD_APPLICATION_ID, using DISCORD_TOKEN (and
DISCORD_API_URL when set). Global registration also makes them usable from user installs, in bot DMs
and private channels (adapters/discord/README.md).
  --guild ID   register in one guild (immediate) instead of globally (can take up to an hour)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { guild: { type: 'string' } }, 'discord');
    if (values.help || positionals[0] !== 'register') {
      io.out(`${this.usage}\n`);
      return values.help ? 0 : 2;
    }
    const { discord } = loadConfig(io.env);
    if (!discord.token || !discord.applicationId) {
      io.err('Set DISCORD_TOKEN and DISCORD_APPLICATION_ID first (see adapters/discord/README.md).\n');
      return 2;
    }
    const result = await registerCommands({
      token: discord.token,
      applicationId: discord.applicationId,
      ...(discord.apiUrl ? { apiUrl: discord.apiUrl } : {}),
      ...(values.guild ? { guildId: values.guild } : {}),
    });
    io.out(`Registered ${result.shown.join(', ')} (${result.scope}${values.guild ? ` ${values.guild}` : ''}).\n`);
    return 0;
  },
};
