import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { InboundMessage } from '../../src/domain/messages.js';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import type { AnswerTarget } from '../../src/replies/inbound-answer.js';
import type { KnownThreads } from './known-threads.js';
import type { ThreadMembership } from './thread-membership.js';

/** What the Slack listeners are given: bolt's app, the client, the core's handler and the adapter's parts. */
export interface ListenerContext {
  app: App;
  client: WebClient;
  handler: InboundHandler;
  /** Where the core's verdicts are answered: the adapter's reply and ephemeral notice. */
  target: AnswerTarget;
  logger: Logger;
  botUserId: string;
  command: string;
  followThreads: boolean;
  known: KnownThreads;
  membership: ThreadMembership;
  /** Adds what the platform knows around a message before the core gets it (what the user is looking at). */
  enrich?: (message: InboundMessage) => Promise<InboundMessage>;
}
