/** The Discord adapter from configuration. */
import type { Config } from '../src/config/index.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { Logger } from '../src/logger.js';
import type { ArtifactRenderer } from '../src/ports/artifact-renderer.js';
import { DiscordAdapter } from '../adapters/discord/index.js';

/** The Discord adapter from the configuration's discord section. */
export function createDiscordAdapter(
  config: Config,
  deps: { logger: Logger; renderer?: ArtifactRenderer },
): DiscordAdapter {
  const { discord } = config;
  if (!discord.token || !discord.applicationId)
    throw new ThreadlabError('config_invalid', 'Discord needs DISCORD_TOKEN and DISCORD_APPLICATION_ID.', {
      isPolicy: true,
    });
  return new DiscordAdapter({
    token: discord.token,
    applicationId: discord.applicationId,
    ...(discord.apiUrl ? { apiUrl: discord.apiUrl } : {}),
    maxUploadBytes: discord.maxUploadBytes,
    maxImageDimensionPx: config.replies.maxImageDimensionPx,
    logger: deps.logger,
    ...(deps.renderer ? { renderer: deps.renderer } : {}),
  });
}
