import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  MessageFlags,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  type ButtonInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import { FEEDBACK_COMMENT_MAX_CHARS, type FeedbackVerdict } from '../../src/domain/feedback.js';
import { threadKey, type ThreadRef } from '../../src/domain/thread-key.js';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import type { OutgoingMessage } from './target.js';

/** Buttons: `threadlab_feedback:<good|bad>:<answer ref>`; the comment modal: `threadlab_feedback_comment:<answer ref>`. */
export const FEEDBACK_BUTTON_PREFIX = 'threadlab_feedback:';
export const FEEDBACK_MODAL_PREFIX = 'threadlab_feedback_comment:';
/** The modal's text input. */
export const FEEDBACK_COMMENT_INPUT = 'comment';

/** An answer ref on a custom id: the inbound message id (`discord:message:<snowflake>`), 64 characters at most. */
const REF = '([A-Za-z0-9:._-]{1,64})';
const BUTTON_ID = new RegExp(`^threadlab_feedback:(good|bad):${REF}$`);
const MODAL_ID = new RegExp(`^threadlab_feedback_comment:${REF}$`);

/**
 * 👍 and 👎 buttons for an answer (an action row of two buttons, discord-api-types APIButtonComponentWithCustomId;
 * custom ids are at most 100 characters, checked here). Undefined when the ref cannot be carried.
 */
export function feedbackRow(answerRef: string): unknown | undefined {
  if (!new RegExp(`^${REF}$`).test(answerRef)) return undefined;
  const button = (verdict: FeedbackVerdict, emoji: string) =>
    new ButtonBuilder()
      .setCustomId(`${FEEDBACK_BUTTON_PREFIX}${verdict}:${answerRef}`)
      .setEmoji(emoji)
      .setStyle(ButtonStyle.Secondary);
  return new ActionRowBuilder<ButtonBuilder>().addComponents(button('good', '👍'), button('bad', '👎')).toJSON();
}

/** Puts the 👍/👎 row on the answer's last message (its own components, if any, are kept first). */
export function withFeedbackRow(messages: OutgoingMessage[], answerRef: string): OutgoingMessage[] {
  const row = feedbackRow(answerRef);
  const last = messages[messages.length - 1];
  if (!row || !last) return messages;
  return [...messages.slice(0, -1), { ...last, components: [...(last.components ?? []), row] }];
}

/** The verdict and answer of a feedback button's custom id, or undefined for any other component. */
export function parseFeedbackButtonId(customId: string): { verdict: FeedbackVerdict; answerRef: string } | undefined {
  const match = BUTTON_ID.exec(customId);
  return match ? { verdict: match[1] as FeedbackVerdict, answerRef: match[2]! } : undefined;
}

/** The answer of the comment modal's custom id, or undefined. */
export function parseFeedbackModalId(customId: string): string | undefined {
  return MODAL_ID.exec(customId)?.[1];
}

/** Where a clicked message is, as the thread keys of messages and commands name it (map-message.ts). */
export function clickThreadRef(o: { guildId: string | null; channelId: string; parentId: string | null }): ThreadRef {
  if (o.guildId === null) return { platform: 'discord', workspace: 'dm', channel: o.channelId, thread: o.channelId };
  return { platform: 'discord', workspace: o.guildId, channel: o.parentId ?? o.channelId, thread: o.channelId };
}

/** The modal 👎 opens: one optional paragraph, at most 500 characters (the comment's bound). */
export function commentModal(answerRef: string): ModalBuilder {
  const input = new TextInputBuilder()
    .setCustomId(FEEDBACK_COMMENT_INPUT)
    .setLabel('What was wrong? (optional)')
    .setStyle(TextInputStyle.Paragraph)
    .setRequired(false)
    .setMaxLength(FEEDBACK_COMMENT_MAX_CHARS);
  return new ModalBuilder()
    .setCustomId(`${FEEDBACK_MODAL_PREFIX}${answerRef}`)
    .setTitle('Feedback on this answer')
    .addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(input));
}

type Deps = { handler: InboundHandler; logger: Logger };

function refOf(interaction: ButtonInteraction | ModalSubmitInteraction) {
  const channel = interaction.channel;
  const parentId = channel && 'parentId' in channel && channel.isThread() ? channel.parentId : null;
  const ref = clickThreadRef({
    guildId: interaction.guildId ?? null,
    channelId: interaction.channelId ?? '',
    parentId,
  });
  const user = { id: interaction.user.id, name: interaction.user.globalName ?? interaction.user.username };
  return { threadKey: threadKey(ref), user };
}

/**
 * A 👍/👎 press: recorded by the core, then 👍 is thanked in an ephemeral reply and 👎 opens the comment modal
 * (the verdict already counts if the modal is closed). A refusal is an ephemeral reply only the presser sees.
 */
export async function handleFeedbackButton(
  interaction: ButtonInteraction,
  parsed: { verdict: FeedbackVerdict; answerRef: string },
  deps: Deps,
): Promise<void> {
  if (!deps.handler.onFeedback) return;
  const outcome = await deps.handler.onFeedback({ ...refOf(interaction), ...parsed });
  const answer = !outcome.recorded
    ? interaction.reply({ content: outcome.message, flags: MessageFlags.Ephemeral })
    : parsed.verdict === 'bad'
      ? interaction.showModal(commentModal(parsed.answerRef))
      : interaction.reply({ content: 'Thanks for the 👍.', flags: MessageFlags.Ephemeral });
  await answer.catch((err: unknown) => deps.logger.warn({ err }, 'could not acknowledge a feedback button'));
}

/** The comment modal sent: the 👎 again with its comment (written, not counted twice), thanked ephemerally. */
export async function handleFeedbackModal(
  interaction: ModalSubmitInteraction,
  answerRef: string,
  deps: Deps,
): Promise<void> {
  if (!deps.handler.onFeedback) return;
  let comment = '';
  try {
    comment = interaction.fields.getTextInputValue(FEEDBACK_COMMENT_INPUT);
  } catch {
    // A modal without the field (not ours, or changed): the verdict stands without a comment.
  }
  const outcome = await deps.handler.onFeedback({ ...refOf(interaction), answerRef, verdict: 'bad', comment });
  const content = outcome.recorded ? 'Thanks, your 👎 and comment were recorded.' : outcome.message;
  await interaction
    .reply({ content, flags: MessageFlags.Ephemeral })
    .catch((err: unknown) => deps.logger.warn({ err }, 'could not acknowledge a feedback comment'));
}
