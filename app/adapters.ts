/** The platform adapters (Slack, Discord, the web chat) and the image renderer, from configuration. */
import type { Config } from '../src/config/index.js';
import type { Logger } from '../src/logger.js';
import type { ArtifactRenderer } from '../src/ports/artifact-renderer.js';
import type { PlatformAdapter } from '../src/ports/platform-adapter.js';
import { SharpArtifactRenderer } from '../adapters/render/sharp-renderer.js';

/**
 * Every platform the configuration enables. Each platform's client library (discord.js, Bolt) is loaded only when
 * its platform is enabled: a process for one platform starts without the others'.
 */
export async function createAdapters(
  config: Config,
  logger: Logger,
  renderer: ArtifactRenderer,
): Promise<PlatformAdapter[]> {
  const adapters: PlatformAdapter[] = [];
  if (config.slack.enabled) {
    const { createSlackAdapter } = await import('./slack.js');
    adapters.push(createSlackAdapter(config, logger, { renderer }));
  }
  if (config.discord.enabled) {
    const { createDiscordAdapter } = await import('./discord.js');
    adapters.push(createDiscordAdapter(config, { logger: logger.child({ platform: 'discord' }), renderer }));
  }
  if (config.web.enabled) {
    const { WebChatAdapter } = await import('../adapters/web/index.js');
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
