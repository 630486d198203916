/** The Slack adapter from configuration. */
import type { Config } from '../src/config/index.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { Logger } from '../src/logger.js';
import { SlackAdapter, type SlackAdapterOptions } from '../adapters/slack/index.js';

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
