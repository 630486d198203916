import { ActionRowBuilder, ButtonBuilder, ButtonStyle, MessageFlags, type ButtonInteraction } from 'discord.js';
import type { Language } from '../../src/domain/execution.js';
import { settledLine } from '../../src/governance/approval/approval-text.js';
import { discordMention } from './profile.js';
import type { Logger } from '../../src/logger.js';
import type { ApprovalPrompt, ApprovalSettled, ApprovalView } from '../../src/ports/approval.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import type { OutgoingFile, ReplyTarget } from './target.js';

/** Prefix of the Run and Skip buttons' custom ids: `threadlab_approval:<run|skip>:<approval id>`. */
export const APPROVAL_BUTTON_PREFIX = 'threadlab_approval:';

/** Discord's message content limit, less room for the header and the fence. */
const CONTENT_CHARS = 2000;

const EXTENSIONS: Record<Language, string> = { python: 'py', bash: 'sh', r: 'R', javascript: 'js' };

/** The Run and Skip buttons of one request. */
function approvalRow(approvalId: string): unknown[] {
  const run = new ButtonBuilder()
    .setCustomId(`${APPROVAL_BUTTON_PREFIX}run:${approvalId}`)
    .setLabel('Run')
    .setStyle(ButtonStyle.Success);
  const skip = new ButtonBuilder()
    .setCustomId(`${APPROVAL_BUTTON_PREFIX}skip:${approvalId}`)
    .setLabel('Skip')
    .setStyle(ButtonStyle.Secondary);
  return [new ActionRowBuilder<ButtonBuilder>().addComponents(run, skip).toJSON()];
}

/** The action and approval id of an approval button's custom id, or undefined for any other component. */
export function parseApprovalButtonId(customId: string): { action: 'run' | 'skip'; approvalId: string } | undefined {
  const match = /^threadlab_approval:(run|skip):([0-9a-f-]{1,64})$/.exec(customId);
  return match ? { action: match[1] as 'run' | 'skip', approvalId: match[2]! } : undefined;
}

/**
 * The message's text: a header and the code fenced. Code that does not fit in 2,000 characters goes
 * whole as an attached file, said in the header, so nobody approves code they could not read.
 */
function approvalMessage(view: ApprovalView): { content: string; files: OutgoingFile[] } {
  const minutes = Math.max(1, Math.round(view.timeoutMs / 60_000));
  const header = `The model wants to run this ${view.language} code. ${discordMention({ id: view.askerId })}, run it? (Skipped if nobody answers within ${minutes} min.)`;
  const fenced = `\`\`\`${view.language}\n${view.code.replaceAll('```', '`\u200b``')}\n\`\`\``;
  const inline = `${header}\n${fenced}`;
  if (inline.length <= CONTENT_CHARS) return { content: inline, files: [] };
  const name = `code.${view.language === 'sql' ? 'sql' : EXTENSIONS[view.language]}`;
  const file = { name, mime: 'text/plain', data: Buffer.from(view.code, 'utf8') };
  return { content: `${header}\nThe code (${view.code.length} characters) is attached as \`${name}\`.`, files: [file] };
}

/** Posts the code with Run and Skip in the thread; settling replaces the buttons with who decided. */
export async function postApproval(target: ReplyTarget, view: ApprovalView): Promise<ApprovalPrompt> {
  const { content, files } = approvalMessage(view);
  const id = await target.post({ content, files, components: approvalRow(view.approvalId) });
  return {
    settle: async (outcome: ApprovalSettled) => {
      const line = settledLine(outcome, (userId) => discordMention({ id: userId }));
      const kept = content.slice(content.indexOf('\n') + 1);
      await target.edit(id, { content: `${line}\n${kept}`.slice(0, CONTENT_CHARS), components: [] });
    },
  };
}

/**
 * A Run or Skip press → the core. A decided press is acknowledged without a message (the prompt is
 * edited by the core's settle); a refused one gets an ephemeral answer only the presser sees.
 */
export async function handleApprovalButton(
  interaction: ButtonInteraction,
  parsed: { action: 'run' | 'skip'; approvalId: string },
  deps: { handler: InboundHandler; logger: Logger },
): Promise<void> {
  if (!deps.handler.onApproval) return;
  const outcome = await deps.handler.onApproval('discord', { ...parsed, userId: interaction.user.id });
  const ack = outcome.ok
    ? interaction.deferUpdate()
    : interaction.reply({ content: outcome.message, flags: MessageFlags.Ephemeral });
  await ack.catch((err: unknown) => deps.logger.warn({ err }, 'could not acknowledge an approval button'));
}
