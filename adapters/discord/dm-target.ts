import { Routes, type REST } from 'discord.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import { ChannelTarget, type OutgoingMessage, type ReplyTarget } from './target.js';

/**
 * Messages to one user's direct-message channel with the bot, opened on first use (`POST /users/@me/channels`,
 * the same channel each time). Where the bot is no member of the place a command was used, this is the one place
 * the bot token may still write to once the interaction's token has run out.
 */
export class DirectMessageTarget implements ReplyTarget {
  private channel: Promise<ChannelTarget> | undefined;

  constructor(
    private readonly rest: REST,
    private readonly userId: string,
  ) {}

  /** The DM channel's id once opened; empty until then. */
  channelId = '';

  async post(message: OutgoingMessage): Promise<string> {
    return (await this.open()).post(message);
  }

  async edit(messageId: string, message: Partial<OutgoingMessage>): Promise<void> {
    await (await this.open()).edit(messageId, message);
  }

  async remove(messageId: string): Promise<void> {
    await (await this.open()).remove(messageId);
  }

  async typing(): Promise<void> {
    // Nothing to show: the user is not looking at the DM while the run goes on elsewhere.
  }

  private open(): Promise<ChannelTarget> {
    this.channel ??= (async () => {
      const dm = (await this.rest.post(Routes.userChannels(), { body: { recipient_id: this.userId } })) as {
        id?: unknown;
      };
      if (typeof dm.id !== 'string') throw new ThreadlabError('platform_api', 'Discord opened no DM channel');
      this.channelId = dm.id;
      return new ChannelTarget(this.rest, dm.id);
    })().catch((err: unknown) => {
      this.channel = undefined;
      throw err;
    });
    return this.channel;
  }
}
