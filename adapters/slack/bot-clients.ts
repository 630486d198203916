import { WebClient, type RetryOptions } from '@slack/web-api';
import type { Logger } from '../../src/logger.js';
import { RateHolds } from '../../src/replies/rate-holds.js';
import { boltLogger } from './bolt-logger.js';
import { heldFetch } from './held-fetch.js';

/** What a `WebClient` is built with, bolt's `App` included. */
export type WebClientOptions = ConstructorParameters<typeof WebClient>[1];

export interface BotClientsOptions {
  /** Bot token (`xoxb-…`), used for every Web API call and file download. */
  botToken: string;
  /** Web API base URL, e.g. a local fake (`SLACK_API_URL`). @defaultValue 'https://slack.com/api/' */
  apiUrl?: string;
  /** Web API retries; 429s are waited out for `Retry-After` seconds, then retried. @defaultValue 5 retries, 1 s minimum backoff */
  retryConfig?: RetryOptions;
  logger: Logger;
}

export interface BotClients {
  /** The Web API client for answering; usable without bolt's App, so a worker can answer too. */
  client: WebClient;
  /** Writes live statuses: a 429 is handed back to the sink, which retries only while its job runs. */
  statusClient: WebClient;
  /** The options of a further client of the same bot (bolt's App's), sharing its holds. */
  clientOptions(): WebClientOptions;
}

/**
 * The Web API clients of one bot token. Every one shares the bot's {@link RateHolds}: a method held by a 429
 * until its Retry-After is held for all of them (held-fetch.ts).
 */
export function createBotClients(options: BotClientsOptions): BotClients {
  const holds = new RateHolds();
  const clientOptions = (o: { liveStatus?: boolean } = {}): WebClientOptions => ({
    fetch: heldFetch({ holds, liveStatus: o.liveStatus === true }),
    ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
    retryConfig: options.retryConfig ?? {
      retries: 5,
      factor: 2,
      minTimeout: 1000,
      maxTimeout: 30_000,
      randomize: true,
    },
    logger: boltLogger(options.logger.child({ component: 'slack-web-api' })),
  });
  const client = new WebClient(options.botToken, clientOptions());
  const statusClient = new WebClient(options.botToken, {
    ...clientOptions({ liveStatus: true }),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 }, // a status that failed is simply written again with the next update
  });
  return { client, statusClient, clientOptions: () => clientOptions() };
}
