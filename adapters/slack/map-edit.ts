import { mapMessageEvent, type MapEventInput, type MapEventResult, type SlackMessageEvent } from './map-event.js';
import { mentionsBot, stripBotMention } from './slack-text.js';

/** The edited message inside a `message_changed` event (what Threadlab reads of it). */
export interface SlackChangedMessage extends Omit<SlackMessageEvent, 'channel' | 'channel_type'> {
  /** Who edited it and when; absent when Slack changed the message itself (an unfurl, a reply count). */
  edited?: { user?: string; ts?: string };
}

/** A `message` event with subtype `message_changed`: the message after the edit and before it. */
export interface SlackMessageChangedEvent extends SlackMessageEvent {
  message?: SlackChangedMessage;
  previous_message?: { text?: string };
}

/** Whether an event is an edit of a message (`message_changed`). */
export function isMessageChanged(event: SlackMessageEvent): event is SlackMessageChangedEvent {
  return event.type === 'message' && event.subtype === 'message_changed';
}

/**
 * Maps a `message_changed` event to the InboundMessage of the edited message, marked as an edit of the
 * original (`edit.originalId` is the id the original had), or says why it is ignored: a bot's edit
 * (ours included), a change Slack made (no `edited`), an edit by someone other than the author, a text
 * left unchanged, or a message the bot would not have answered. Each edit has its own id, so a
 * redelivery runs once and a second edit runs again. Pure.
 */
export function mapEditEvent(input: MapEventInput & { event: SlackMessageChangedEvent }): MapEventResult {
  const { event, botUserId } = input;
  const edited = event.message;
  if (!edited) return ignore('message_changed without a message');
  if (edited.bot_id || edited.subtype === 'bot_message' || edited.user === botUserId) return ignore('a bot edit');
  if (!edited.user || !edited.ts || !edited.edited?.ts) return ignore('not an edit by a person');
  if (edited.edited.user !== undefined && edited.edited.user !== edited.user) return ignore('edited by someone else');
  const text = edited.text ?? '';
  const previous = event.previous_message?.text;
  if (previous !== undefined && previous === text) return ignore('text unchanged');
  // The edited message is mapped as a new message would be; a mention there has no app_mention copy.
  const synthetic: SlackMessageEvent = {
    ...edited,
    type: mentionsBot(text, botUserId) ? 'app_mention' : 'message',
    ...(edited.files ? { subtype: 'file_share' } : {}),
    ...(event.channel !== undefined ? { channel: event.channel } : {}),
    ...(event.channel_type !== undefined ? { channel_type: event.channel_type } : {}),
  };
  if (!edited.files) delete synthetic.subtype;
  const mapped = mapMessageEvent({ ...input, event: synthetic });
  if (mapped.kind === 'ignore') return mapped;
  const message = mapped.message;
  const originalId = message.id;
  message.id = `${originalId}:edit:${edited.edited.ts}`;
  message.edit = {
    originalId,
    ...(previous !== undefined ? { previousText: stripBotMention(previous, botUserId) } : {}),
  };
  return { kind: 'message', message };
}

function ignore(reason: string): MapEventResult {
  return { kind: 'ignore', reason };
}
