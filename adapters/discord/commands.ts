import {
  ApplicationCommandType,
  ContextMenuCommandBuilder,
  SlashCommandBuilder,
  type RESTPostAPIApplicationCommandsJSONBody,
} from 'discord.js';
import { LANGUAGES } from '../../src/domain/execution.js';
import { RUN_CODE_COMMAND } from './map-message-command.js';

/**
 * The application commands Threadlab registers: /run, /reset, /files, /help, /usage, /schedule, /export, and the
 * message command "Run code" (Apps → Run code on any message: its fenced blocks or attached script run in a thread).
 */
export function commandDefinitions(): RESTPostAPIApplicationCommandsJSONBody[] {
  return [
    new SlashCommandBuilder()
      .setName('run')
      .setDescription("Run code in this thread's sandbox, as is")
      .addStringOption((o) => o.setName('code').setDescription('The code to run').setRequired(true).setMaxLength(6000))
      .addStringOption((o) =>
        o
          .setName('language')
          .setDescription('Language (default python)')
          .addChoices(...LANGUAGES.map((l) => ({ name: l, value: l }))),
      )
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
