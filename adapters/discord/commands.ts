import {
  ApplicationCommandType,
  ApplicationIntegrationType,
  ContextMenuCommandBuilder,
  InteractionContextType,
  SlashCommandBuilder,
  type RESTPostAPIApplicationCommandsJSONBody,
} from 'discord.js';
import { ASK_COMMAND, RUN_LANGUAGES } from './map-interaction.js';
import { RUN_CODE_COMMAND } from './map-message-command.js';

/**
 * Everywhere a person can use an app (Discord's "Contexts" of application commands): installed to a server or to
 * a user (`integration_types` 0 and 1), used in servers, the bot's DM and other DMs or group DMs (`contexts` 0, 1
 * and 2). Answers where the bot is no member go through the interaction (target.ts).
 */
const EVERYWHERE = {
  integration_types: [ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall],
  contexts: [InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel],
};
/**
 * Commands that need the bot where they are used, later and without an interaction: /schedule posts on its own,
 * Run code starts a thread on the message. A server install, in servers and the bot's DM.
 */
const WHERE_THE_BOT_IS = {
  integration_types: [ApplicationIntegrationType.GuildInstall],
  contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
};

/** Longest question /ask takes as an option, in characters (its modal takes 4,000). */
const QUESTION_MAX_CHARS = 4000;

/**
 * The application commands Threadlab registers: /run, /ask, /reset, /files, /help, /usage, /schedule, /export, and
 * the message command "Run code" (Apps → Run code on any message: its fenced blocks or attached script run in a
 * thread). Global commands say where they can be installed and used (`integration_types`, `contexts`); Discord
 * reads those for global commands only, so a guild's registration (`scope: 'guild'`) leaves them out.
 */
export function commandDefinitions(
  options: { scope?: 'global' | 'guild' } = {},
): RESTPostAPIApplicationCommandsJSONBody[] {
  const global = (options.scope ?? 'global') === 'global';
  return baseDefinitions().map((command) => {
    if (!global) {
      // The builders set both keys (undefined); a guild's commands carry neither.
      const { integration_types: _types, contexts: _contexts, ...guildCommand } = command;
      return guildCommand as RESTPostAPIApplicationCommandsJSONBody;
    }
    const where = command.name === 'schedule' || command.name === RUN_CODE_COMMAND ? WHERE_THE_BOT_IS : EVERYWHERE;
    return { ...command, ...where };
  });
}

function baseDefinitions(): RESTPostAPIApplicationCommandsJSONBody[] {
  return [
    new SlashCommandBuilder()
      .setName('run')
      .setDescription("Run code in this thread's sandbox, as is (no code: a form for a longer program and files)")
      .addStringOption((o) =>
        o.setName('code').setDescription('The code to run (a ```fenced``` block is fine)').setMaxLength(6000),
      )
      .addStringOption((o) =>
        o
          .setName('language')
          .setDescription('Language (default python; sql queries a data source)')
          .addChoices(...RUN_LANGUAGES.map((l) => ({ name: l, value: l }))),
      )
      .toJSON(),
    new SlashCommandBuilder()
      .setName(ASK_COMMAND)
      .setDescription('Ask a question about your data (no question: a form for a longer one and files)')
      .addStringOption((o) => o.setName('question').setDescription('What to find out').setMaxLength(QUESTION_MAX_CHARS))
      .toJSON(),
    new SlashCommandBuilder().setName('reset').setDescription("Forget this thread's variables and files").toJSON(),
    new SlashCommandBuilder().setName('files').setDescription("List the files in this thread's sandbox").toJSON(),
    new SlashCommandBuilder().setName('help').setDescription('How to use Threadlab').toJSON(),
    new SlashCommandBuilder()
      .setName('usage')
      .setDescription("Today's use of your daily budgets and what is left")
      .toJSON(),
    new SlashCommandBuilder()
      .setName('schedule')
      .setDescription('Post a report here on a schedule: every day 09:00 <question>, every 6h rerun, list, cancel 2')
      .addStringOption((o) =>
        o
          .setName('what')
          .setDescription('every day 09:00 <question or rerun> (TZ=Europe/Paris for a zone), list, or cancel N')
          .setRequired(true)
          .setMaxLength(4000),
      )
      .toJSON(),
    new SlashCommandBuilder()
      .setName('export')
      .setDescription('This thread as a Jupyter notebook and a requirements.txt')
      .toJSON(),
    new ContextMenuCommandBuilder().setName(RUN_CODE_COMMAND).setType(ApplicationCommandType.Message).toJSON(),
  ];
}
