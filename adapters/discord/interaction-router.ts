import {
  MessageFlags,
  type CommandInteraction,
  type Interaction,
  type MessageContextMenuCommandInteraction,
  type ModalSubmitInteraction,
  type REST,
} from 'discord.js';
import { toThreadlabError } from '../../src/domain/errors.js';
import type { InboundMessage } from '../../src/domain/messages.js';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import { answerInbound, tellPrivately, type AnswerTarget } from '../../src/replies/inbound-answer.js';
import { handleApprovalButton, parseApprovalButtonId } from './approval.js';
import { handleFeedbackButton, handleFeedbackModal, parseFeedbackButtonId, parseFeedbackModalId } from './feedback.js';
import { botIsPresent, modalWanted, parseStopButtonId, RUN_LANGUAGES, toCommandMessage } from './map-interaction.js';
import { RUN_CODE_COMMAND } from './map-message-command.js';
import { modalFor, toModalMessage } from './modal.js';
import { runMessageCommand } from './run-message.js';
import { handleStopButton } from './stop-button.js';
import type { ThreadFollower } from './thread-follower.js';
import { viewFromCommand, viewFromMessageCommand, viewFromModal } from './views.js';

export interface InteractionRouterOptions {
  rest: REST;
  logger: Logger;
  handler: InboundHandler;
  /** The adapter, which gives the core's verdict on a command its one answer. */
  answers: AnswerTarget;
  /**
   * Slash commands the core is deciding on, not acknowledged yet (at most Discord's 3 s each), by inbound
   * message id: the adapter's private notice answers a refusal through them.
   */
  pending: Map<string, CommandInteraction | ModalSubmitInteraction>;
  /** Remembers the threads a message command starts. */
  follower: ThreadFollower;
}

/**
 * INTERACTION_CREATE: a button (approval, feedback, Stop), a submitted modal, a slash command or a message
 * command, each handed to what answers it.
 */
export class InteractionRouter {
  private readonly log: Logger;

  constructor(private readonly o: InteractionRouterOptions) {
    this.log = o.logger;
  }

  async route(interaction: Interaction): Promise<void> {
    const { handler } = this.o;
    try {
      if (interaction.isButton()) {
        const approval = parseApprovalButtonId(interaction.customId);
        if (approval) return await handleApprovalButton(interaction, approval, { handler, logger: this.log });
        const feedback = parseFeedbackButtonId(interaction.customId);
        if (feedback) return await handleFeedbackButton(interaction, feedback, { handler, logger: this.log });
        const key = parseStopButtonId(interaction.customId);
        if (!key) return;
        return await handleStopButton(interaction, key, { handler, logger: this.log });
      }
      if (interaction.isModalSubmit()) {
        const answerRef = parseFeedbackModalId(interaction.customId);
        if (answerRef) return await handleFeedbackModal(interaction, answerRef, { handler, logger: this.log });
        return await this.onModalSubmit(interaction);
      }
      if (!interaction.isChatInputCommand() && !interaction.isMessageContextMenuCommand()) return;
      // A thread not cached yet: its type and parent decide where the command's session lives. Never where the
      // bot is no member: the bot token has no business there.
      const view = viewFromCommand(interaction);
      if (!interaction.channel && interaction.guildId && interaction.channelId && botIsPresent(view)) {
        await interaction.client.channels.fetch(interaction.channelId).catch(() => null);
      }
      if (interaction.isMessageContextMenuCommand()) return await this.onMessageCommand(interaction);
      const modal = modalWanted(view);
      if (modal) return await this.openModal(interaction, view, modal);
      const inbound = toCommandMessage(viewFromCommand(interaction));
      if (!inbound) {
        await interaction.reply({
          content: `Unknown command /${interaction.commandName}.`,
          flags: MessageFlags.Ephemeral,
        });
        return;
      }
      await this.admitAndAnswer(interaction, inbound);
    } catch (err) {
      this.log.error(
        { err: toThreadlabError(err), interaction: interaction.id },
        'could not handle a Discord interaction',
      );
    }
  }

  /** The core's access verdict on a slash command, asked while the interaction is not acknowledged yet. */
  private async admitCommand(
    interaction: CommandInteraction | ModalSubmitInteraction,
    inbound: InboundMessage,
  ): Promise<boolean> {
    const { handler, pending } = this.o;
    if (!handler.admit) return true;
    pending.set(inbound.id, interaction);
    try {
      const admission = await handler.admit(inbound, { slashCommand: true });
      // Said while the interaction is pending, so the notice is its ephemeral answer.
      if (!admission.allowed && admission.tell)
        await tellPrivately(this.o.answers, inbound, admission.message, this.log);
      return admission.allowed;
    } finally {
      pending.delete(inbound.id);
    }
  }

  /** Apps → Run code (a message command): see run-message.ts. */
  private async onMessageCommand(interaction: MessageContextMenuCommandInteraction): Promise<void> {
    if (interaction.commandName !== RUN_CODE_COMMAND) {
      await interaction.reply({
        content: `Unknown command ${interaction.commandName}.`,
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    const context = {
      rest: this.o.rest,
      logger: this.log,
      handler: this.o.handler,
      admit: (i: CommandInteraction, provisional: InboundMessage) => this.admitCommand(i, provisional),
      follow: (threadId: string) => this.o.follower.follow(threadId),
    };
    await runMessageCommand(context, interaction, viewFromMessageCommand(interaction));
  }

  /**
   * Access first, before the deferral: a refused user gets an ephemeral answer (notifyPrivately) and the channel
   * sees nothing, where a public "thinking…" placeholder would show the refused command. Then defer (Discord drops
   * interactions not acknowledged within 3 s; if deferring failed, the reply target falls back) and hand it on.
   */
  private async admitAndAnswer(
    interaction: CommandInteraction | ModalSubmitInteraction,
    inbound: InboundMessage,
  ): Promise<void> {
    if (!(await this.admitCommand(interaction, inbound))) return;
    await interaction
      .deferReply()
      .catch((err: unknown) => this.log.warn({ err }, 'could not defer a Discord interaction'));
    await answerInbound(this.o.answers, inbound, await this.o.handler.onMessage(inbound), this.log);
  }

  /**
   * `/run` without code or `/ask` without a question: the modal (a multi-line text and a File Upload) is the
   * interaction's first response, shown only to someone the core admits.
   */
  private async openModal(
    interaction: CommandInteraction,
    view: ReturnType<typeof viewFromCommand>,
    kind: 'run' | 'ask',
  ): Promise<void> {
    const probe = toCommandMessage({ ...view, commandName: 'help', options: {} });
    if (probe && !(await this.admitCommand(interaction, probe))) return;
    const language = view.options.language;
    const chosen = kind === 'run' ? RUN_LANGUAGES.find((l) => l === language) : undefined;
    await interaction.showModal(
      modalFor(kind === 'ask' ? { kind } : { kind, ...(chosen ? { language: chosen } : {}) }),
    );
  }

  /** A submitted modal runs or asks as its command would; a submission that cannot be read is told privately. */
  private async onModalSubmit(interaction: ModalSubmitInteraction): Promise<void> {
    const mapped = toModalMessage(viewFromModal(interaction));
    if (!mapped.ok) {
      await interaction.reply({ content: mapped.problem, flags: MessageFlags.Ephemeral });
      return;
    }
    await this.admitAndAnswer(interaction, mapped.message);
  }
}
