import { REST, Routes } from 'discord.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import { commandDefinitions } from './commands.js';
import { createDiscordRestAgent } from './rest-agent.js';

export interface RegisterCommandsOptions {
  token: string;
  applicationId: string;
  /** REST base (DISCORD_API_URL), e.g. `http://127.0.0.1:PORT/api`. @defaultValue https://discord.com/api */
  apiUrl?: string;
  /** Register for one guild (appears at once) instead of globally (may take up to an hour). */
  guildId?: string;
}

/**
 * Registers /run, /ask, /reset, /files, /help, /usage, /schedule, /export and the "Run code" message command with one bulk
 * overwrite (`PUT`), globally (installable to servers and users: commands.ts) or for one guild.
 * Returns the names Discord confirmed, and `shown`: each as its users find it (`/run`, `Apps → Run code`). Throws `platform_api` with Discord's message on failure.
 */
export async function registerCommands(
  options: RegisterCommandsOptions,
): Promise<{ scope: 'global' | 'guild'; names: string[]; shown: string[] }> {
  const agent = createDiscordRestAgent();
  const rest = new REST({ version: '10', agent, ...(options.apiUrl ? { api: options.apiUrl } : {}) }).setToken(
    options.token,
  );
  const route = options.guildId
    ? Routes.applicationGuildCommands(options.applicationId, options.guildId)
    : Routes.applicationCommands(options.applicationId);
  try {
    const registered = (await rest.put(route, {
      body: commandDefinitions({ scope: options.guildId ? 'guild' : 'global' }),
    })) as { name: string; type?: number }[];
    return {
      scope: options.guildId ? 'guild' : 'global',
      names: registered.map((c) => c.name),
      // As users find them: a slash command typed, a message command (type 3) under Apps on a message.
      shown: registered.map((c) => (c.type === 3 ? `Apps → ${c.name}` : `/${c.name}`)),
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ThreadlabError(
      'platform_api',
      `Registering Discord commands failed: ${message}. Check DISCORD_TOKEN and DISCORD_APPLICATION_ID.`,
      { cause: err },
    );
  } finally {
    await agent.close();
  }
}
