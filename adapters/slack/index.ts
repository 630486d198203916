import type { Config } from '../../src/config.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { Logger } from '../../src/logger.js';
import { SlackAdapter, type SlackAdapterOptions } from './slack-adapter.js';

export { SlackAdapter, type SlackAdapterOptions } from './slack-adapter.js';
export { mapMessageEvent, mapFile } from './map-event.js';
export { parseCommandText, mapSlashCommand } from './map-command.js';
export { planReply } from './reply-blocks.js';
export { STOP_ACTION_ID } from './progress-view.js';

/**
 * Builds the Slack adapter from configuration: SLACK_BOT_TOKEN, SLACK_APP_TOKEN (Socket Mode) or
 * SLACK_SIGNING_SECRET (HTTP mode), SLACK_API_URL, THREADLAB_SLACK_MODE, THREADLAB_SLACK_PORT, THREADLAB_SLACK_HOST,
 * THREADLAB_SLACK_COMMAND and THREADLAB_SLACK_FOLLOW_THREADS. `overrides` is for tests and main.ts
 * (a renderer, a host to listen on).
 */
export function createSlackAdapter(
  config: Config,
  logger: Logger,
  overrides: Partial<SlackAdapterOptions> = {},
): SlackAdapter {
  const { env } = config;
  if (!env.SLACK_BOT_TOKEN)
    throw new ThreadlabError('config_invalid', 'SLACK_BOT_TOKEN is required for Slack (xoxb-…).', { isPolicy: true });
  return new SlackAdapter({
    botToken: env.SLACK_BOT_TOKEN,
    mode: env.THREADLAB_SLACK_MODE,
    appToken: env.SLACK_APP_TOKEN,
    signingSecret: env.SLACK_SIGNING_SECRET,
    port: env.THREADLAB_SLACK_PORT,
    ...(env.THREADLAB_SLACK_HOST ? { host: env.THREADLAB_SLACK_HOST } : {}),
    apiUrl: env.SLACK_API_URL,
    command: env.THREADLAB_SLACK_COMMAND,
    followThreads: env.THREADLAB_SLACK_FOLLOW_THREADS,
    maxImageDimensionPx: env.THREADLAB_REPLY_MAX_IMAGE_PX,
    logger: logger.child({ platform: 'slack' }),
    ...overrides,
  });
}
