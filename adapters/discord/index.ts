import type { Config } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import type { ArtifactRenderer } from '../../src/ports/artifact-renderer.js';
import { DiscordAdapter } from './discord-adapter.js';

export { DiscordAdapter, type DiscordAdapterOptions } from './discord-adapter.js';
export { registerCommands, type RegisterCommandsOptions } from './register-commands.js';
export { commandDefinitions } from './commands.js';

/** The Discord adapter from configuration (DISCORD_TOKEN, DISCORD_APPLICATION_ID, DISCORD_API_URL, THREADLAB_DISCORD_MAX_UPLOAD_MB). */
export function createDiscordAdapter(
  config: Config,
  deps: { logger: Logger; renderer?: ArtifactRenderer },
): DiscordAdapter {
  const env = config.env;
  if (!env.DISCORD_TOKEN || !env.DISCORD_APPLICATION_ID)
    throw new Error('Discord is not configured: set DISCORD_TOKEN and DISCORD_APPLICATION_ID');
  return new DiscordAdapter({
    token: env.DISCORD_TOKEN,
    applicationId: env.DISCORD_APPLICATION_ID,
    ...(env.DISCORD_API_URL ? { apiUrl: env.DISCORD_API_URL } : {}),
    maxUploadBytes: Math.floor(env.THREADLAB_DISCORD_MAX_UPLOAD_MB * 1024 * 1024),
    maxImagePx: env.THREADLAB_REPLY_MAX_IMAGE_PX,
    logger: deps.logger,
    ...(deps.renderer ? { renderer: deps.renderer } : {}),
  });
}
