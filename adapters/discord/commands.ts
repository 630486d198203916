import { SlashCommandBuilder, type RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import { LANGUAGES } from '../../src/domain/execution.js';

/** The application commands Threadlab registers: /run, /reset, /files, /help, /usage, /export. */
export function commandDefinitions(): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
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
      .setName('export')
      .setDescription('This thread as a Jupyter notebook and a requirements.txt')
      .toJSON(),
  ];
}
