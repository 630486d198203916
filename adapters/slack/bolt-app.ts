import { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { Logger } from '../../src/logger.js';
import { boltLogger } from './bolt-logger.js';
import type { WebClientOptions } from './bot-clients.js';
import { toSlackError } from './errors.js';

export interface BoltAppOptions {
  botToken: string;
  /** `socket` needs no public URL; `http` receives signed requests on `port`. @defaultValue 'socket' */
  mode?: 'socket' | 'http';
  /** App-level token (`xapp-…`), required in Socket Mode. */
  appToken?: string;
  /** Signing secret, required in HTTP mode to verify requests. */
  signingSecret?: string;
  /** HTTP mode: port for `/slack/events` (0 picks a free one, see `SlackAdapter.httpPort`). @defaultValue 3000 */
  port?: number;
  /** HTTP mode: address to listen on. @defaultValue all interfaces */
  host?: string;
  logger: Logger;
}

/** Bolt's App for the bot, and who the bot is. */
export interface BoltApp {
  app: App;
  /** The bot's user id (`auth.test`'s `user_id`). */
  botUserId: string | undefined;
  /** The bot's id (`auth.test`'s `bot_id`). */
  botId: string | undefined;
}

/** Checks the bot token once (`auth.test`; a refusal says what to copy where), then builds bolt's App, not started. */
export async function createBoltApp(
  client: WebClient,
  options: BoltAppOptions,
  clientOptions: WebClientOptions,
): Promise<BoltApp> {
  const socketMode = (options.mode ?? 'socket') === 'socket';
  const auth = await client.auth.test().catch((err: unknown) => {
    throw startError(err, 'SLACK_BOT_TOKEN was refused', 'copy the Bot User OAuth Token (xoxb-…) from Install App');
  });
  const app = new App({
    token: options.botToken,
    botId: auth.bot_id,
    botUserId: auth.user_id,
    tokenVerificationEnabled: false, // verified just above
    ...(socketMode ? { appToken: options.appToken, socketMode: true } : { signingSecret: options.signingSecret }),
    clientOptions,
    logger: boltLogger(options.logger.child({ component: 'bolt' })),
  });
  return { app, botUserId: auth.user_id, botId: auth.bot_id };
}

/**
 * Starts the App: Socket Mode connects, HTTP listens. Resolves the port listened on (HTTP mode); a failure
 * stops the App and says which setting to change.
 */
export async function startBoltApp(app: App, options: BoltAppOptions): Promise<number | undefined> {
  const socketMode = (options.mode ?? 'socket') === 'socket';
  try {
    if (socketMode) {
      await app.start();
      return undefined;
    }
    const server = (await app.start({
      port: options.port ?? 3000,
      ...(options.host ? { host: options.host } : {}),
    })) as {
      address(): { port: number } | string | null;
    };
    const address = server.address();
    return typeof address === 'object' && address ? address.port : options.port;
  } catch (err) {
    await app.stop().catch(() => undefined);
    throw socketMode
      ? startError(
          err,
          'Socket Mode could not connect',
          'check SLACK_APP_TOKEN: an app-level token (xapp-…) with connections:write',
        )
      : startError(
          err,
          `could not listen on ${options.host ?? 'all interfaces'}, port ${options.port ?? 3000}`,
          'set THREADLAB_SLACK_PORT to a free port and THREADLAB_SLACK_HOST to an address of this machine',
        );
  }
}

function startError(err: unknown, what: string, fix: string): ThreadlabError {
  const cause = toSlackError(err, 'start');
  return new ThreadlabError('platform_api', `Slack: ${what} (${cause.message}); ${fix}.`, {
    cause: err,
    isPolicy: true,
  });
}
