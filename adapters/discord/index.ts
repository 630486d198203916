export { DiscordAdapter, type DiscordAdapterOptions } from './discord-adapter.js';
export { registerCommands, type RegisterCommandsOptions } from './register-commands.js';
export { commandDefinitions } from './commands.js';
