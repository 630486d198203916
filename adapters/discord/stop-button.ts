import { MessageFlags, type ButtonInteraction } from 'discord.js';
import { toThreadlabError } from '../../src/domain/errors.js';
import type { InboundUser } from '../../src/domain/messages.js';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import { memberRoleIds } from './member-roles.js';

/** How long a Stop press waits for the core's verdict before it is acknowledged anyway, in ms (Discord allows 3 s). */
const STOP_ACK_MS = 2000;

/**
 * A Stop press: the core's verdict (who may stop) is the one ephemeral answer. Discord drops a press not
 * acknowledged within 3 s: a verdict slower than {@link STOP_ACK_MS} (a cancel still telling queued
 * messages) is acknowledged as stopping, and a refusal arriving after that follows up, privately.
 */
export async function handleStopButton(
  interaction: ButtonInteraction,
  key: string,
  deps: { handler: InboundHandler; logger: Logger },
): Promise<void> {
  const verdict = deps.handler.onCancel(key, pressUser(interaction)).catch((err: unknown) => {
    deps.logger.error({ err: toThreadlabError(err), thread: key }, 'stop failed');
    return undefined;
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_ACK_MS)));
  const first = await Promise.race([verdict, late]);
  clearTimeout(timer);
  const say = (content: string, how: 'reply' | 'followUp') =>
    interaction[how]({ content, flags: MessageFlags.Ephemeral }).then(
      () => undefined,
      (err: unknown) => deps.logger.warn({ err }, 'could not answer the Stop button'),
    );
  if (first !== 'late') {
    await say(first && !first.accepted ? first.message : '🛑 Stopping…', 'reply');
    return;
  }
  await say('🛑 Stopping…', 'reply');
  const outcome = await verdict;
  if (outcome && !outcome.accepted) await say(outcome.message, 'followUp');
}

/** Who pressed a button, as the access allowlists and the Stop check read them. */
function pressUser(interaction: ButtonInteraction): InboundUser {
  const roles = memberRoleIds(interaction.member, interaction.guildId);
  return {
    id: interaction.user.id,
    name: interaction.user.globalName ?? interaction.user.username,
    ...(roles ? { roles } : {}),
  };
}
