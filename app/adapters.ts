/** The platform adapters (Slack, Discord, the web chat) and the image renderer, from configuration. */
import type { Config } from '../src/config/index.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { Logger } from '../src/logger.js';
import type { ArtifactRenderer } from '../src/ports/artifact-renderer.js';
import type { PlatformAdapter } from '../src/ports/platform-adapter.js';
import { SharpArtifactRenderer } from '../adapters/render/sharp-renderer.js';
import { SlackAdapter, type SlackAdapterOptions } from '../adapters/slack/index.js';
import { DiscordAdapter } from '../adapters/discord/index.js';
import { WebChatAdapter } from '../adapters/web/index.js';

/** The Slack adapter from the configuration's slack section; `overrides` for tests (a renderer, a port). */
export function createSlackAdapter(
  config: Config,
  logger: Logger,
  overrides: Partial<SlackAdapterOptions> = {},
): SlackAdapter {
  const { slack } = config;
  if (!slack.botToken)
    throw new ThreadlabError('config_invalid', 'SLACK_BOT_TOKEN is required for Slack (xoxb-…).', { isPolicy: true });
  return new SlackAdapter({
    botToken: slack.botToken,
    mode: slack.mode,
    appToken: slack.appToken,
    signingSecret: slack.signingSecret,
    port: slack.port,
    ...(slack.host ? { host: slack.host } : {}),
    apiUrl: slack.apiUrl,
    command: slack.command,
    followThreads: slack.followThreads,
    maxImageDimensionPx: config.replies.maxImageDimensionPx,
    dataDir: config.dataDir,
    logger: logger.child({ platform: 'slack' }),
    ...overrides,
  });
}

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

/** Every platform the configuration enables. */
export function createAdapters(config: Config, logger: Logger, renderer: ArtifactRenderer): PlatformAdapter[] {
  const adapters: PlatformAdapter[] = [];
  if (config.slack.enabled) adapters.push(createSlackAdapter(config, logger, { renderer }));
  if (config.discord.enabled)
    adapters.push(createDiscordAdapter(config, { logger: logger.child({ platform: 'discord' }), renderer }));
  if (config.web.enabled) {
    adapters.push(
      new WebChatAdapter({
        host: config.web.host,
        port: config.web.port,
        dataDir: config.dataDir,
        maxUploadBytes: config.sandbox.maxFileBytes,
        events: { maxStreams: config.web.maxStreams },
        server: { maxConnections: config.web.maxConnections },
        logger,
        ...(config.web.token ? { token: config.web.token } : {}),
      }),
    );
  }
  return adapters;
}

/** The renderer of charts and images into platform-sized files (sharp). */
export function createRenderer(config: Pick<Config, 'replies'>, logger?: Logger): ArtifactRenderer {
  return new SharpArtifactRenderer({ keepPngBytes: config.replies.keepPngKb * 1024, ...(logger ? { logger } : {}) });
}
