import { MessageFlags, Routes, type Message, type MessageContextMenuCommandInteraction, type REST } from 'discord.js';
import { isRunWord } from '../../src/domain/code-cells.js';
import { toThreadlabError } from '../../src/domain/errors.js';
import type { InboundMessage } from '../../src/domain/messages.js';
import type { ThreadRef } from '../../src/domain/thread-key.js';
import type { Logger } from '../../src/logger.js';
import type { InboundHandler } from '../../src/ports/platform-adapter.js';
import { commandThreadRef } from './map-interaction.js';
import { runThreadName, toRunMessage, withRunReference, type MessageCommandView } from './map-message-command.js';
import { viewFromMessage } from './views.js';
import { CHANNEL, isThreadType } from './map-message.js';
import { restFailure } from './target.js';

/** Discord's code for "a thread has already been created for this message". */
const THREAD_ALREADY_CREATED = 160004;
/** Codes of a channel the bot cannot see or may not start threads in (Missing Access, Missing Permissions). */
const NO_ACCESS = new Set([50001, 50013]);

/** Channels a thread can be started from a message in. */
const THREADABLE: readonly number[] = [CHANNEL.GuildText, CHANNEL.GuildAnnouncement];

export interface RunMessageContext {
  rest: REST;
  logger: Logger;
  handler: InboundHandler;
  /** The core's access verdict while the interaction is not acknowledged (a refusal is its ephemeral answer). */
  admit: (interaction: MessageContextMenuCommandInteraction, provisional: InboundMessage) => Promise<boolean>;
  /** Remembers a thread the bot started, so its follow-ups need no mention. */
  follow: (threadId: string) => void;
}

/**
 * Apps → Run code on a message: the invoker's access first (a refusal is said only to them), then a thread of its
 * own started on that message (or the thread or DM it is in), the message's code handed to the core as the
 * invoker's request, and an ephemeral word to the invoker saying where it runs. A channel the bot cannot read
 * or start threads in is said to the invoker, with what to change.
 */
export async function runMessageCommand(
  ctx: RunMessageContext,
  interaction: MessageContextMenuCommandInteraction,
  view: MessageCommandView,
): Promise<void> {
  const place = commandThreadRef({ ...view, options: {} });
  if (!(await ctx.admit(interaction, toRunMessage(view, place, 'interaction')))) return;
  // Acknowledged within Discord's 3 s; only the invoker sees this answer.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  let ref: ThreadRef;
  try {
    ref = await runThread(ctx.rest, view, place);
  } catch (err) {
    const failure = restFailure(err);
    ctx.logger.warn({ err: toThreadlabError(err), code: failure.code }, 'could not start a thread for Run code');
    await interaction.editReply(
      typeof failure.code === 'number' && NO_ACCESS.has(failure.code)
        ? 'I cannot read this channel or start threads in it. Give Threadlab the View Channel, Send Messages and Create Public Threads permissions here, or copy the code into a channel I can use.'
        : 'I could not start a thread for this run. Please try again.',
    );
    return;
  }
  if (ref.thread !== place.thread) ctx.follow(ref.thread);
  const outcome = await ctx.handler.onMessage(toRunMessage(view, ref));
  const where = ref.thread === view.channel.id ? 'here' : `in <#${ref.thread}>`;
  await interaction.editReply(outcome && !outcome.accepted ? outcome.message : `Running that message's code ${where}.`);
}

/** Where the run happens: a new thread on the target in a text channel, else the thread or DM it is in. */
async function runThread(rest: REST, view: MessageCommandView, place: ThreadRef): Promise<ThreadRef> {
  if (view.guildId === null || isThreadType(view.channel.type) || !THREADABLE.includes(view.channel.type)) return place;
  const channelId = view.channel.id;
  try {
    const thread = (await rest.post(Routes.threads(channelId, view.target.id), {
      body: { name: runThreadName(view) },
      reason: 'Threadlab: Run code',
    })) as { id: string };
    return { ...place, thread: thread.id };
  } catch (err) {
    if (restFailure(err).code !== THREAD_ALREADY_CREATED) throw err;
    // The message has a thread already: the run goes there.
    const message = (await rest.get(Routes.channelMessage(channelId, view.target.id))) as { thread?: { id?: string } };
    if (!message.thread?.id) throw err;
    return { ...place, thread: message.thread.id };
  }
}

/**
 * A typed `run` sent as a reply to a message, with nothing attached: the run of the replied-to message's code (a
 * slash command cannot be a reply on Discord, so this is how a reply asks). Anything else is left as it is.
 */
export async function runReference(message: Message, inbound: InboundMessage): Promise<InboundMessage> {
  if (!message.reference?.messageId || inbound.command || inbound.attachments.length > 0) return inbound;
  if (!isRunWord(inbound.text)) return inbound;
  // A message gone or out of reach leaves the bare `run`, which the core answers with what it runs.
  const referenced = await message.fetchReference().catch(() => undefined);
  return referenced ? withRunReference(inbound, viewFromMessage(referenced)) : inbound;
}
