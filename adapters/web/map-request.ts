import type { InboundCommand, InboundMessage } from '../../src/domain/messages.js';
import { mimeFromName } from '../../src/domain/mime.js';
import type { ThreadRef } from '../../src/domain/thread-key.js';
import { withTypedCommand } from '../../src/domain/typed-command.js';
import { webProfile } from './profile.js';
import type { WebAttachment, WebMessage } from './types.js';

/** A request the API refuses, with the HTTP status to answer. */
/** The web chat's one user: whoever holds the page's address (and token). */
export const WEB_USER = { id: 'web-user', name: 'you' } as const;

export class WebRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code = 'bad_request',
  ) {
    super(message);
    this.name = 'WebRequestError';
  }
}

/** A MIME type as `type/subtype`, lower case and without parameters; undefined when it is not one. */
export function normaliseMime(declared: string | undefined): string | undefined {
  const essence = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(essence) ? essence : undefined;
}

/**
 * The MIME type to record: the extension's when it is known (browsers report CSV as Excel on some
 * systems, and multipart parts without a type default to text/plain), else what the client declared
 * if it is a well-formed type (it becomes a response header), else `application/octet-stream`.
 */
export function pickMime(name: string, declared: string | undefined): string {
  const guessed = mimeFromName(name);
  return guessed !== 'application/octet-stream' ? guessed : (normaliseMime(declared) ?? guessed);
}

/** The ThreadRef of a web chat thread. */
export function webThreadRef(threadId: string): ThreadRef {
  return { platform: 'web', workspace: 'local', channel: 'web', thread: threadId };
}

/**
 * The InboundMessage the core receives for a stored user message. `command` is the Reset button's, or
 * the command typed as the text (`/reset`); a code block or a question is the core's to read.
 */
export function toInboundMessage(input: {
  messageId: string;
  threadId: string;
  text: string;
  attachments: WebAttachment[];
  command?: InboundCommand;
  receivedAtMs: number;
  user?: { id: string; name?: string };
}): InboundMessage {
  const message: InboundMessage = {
    id: `web-${input.messageId}`,
    thread: webThreadRef(input.threadId),
    user: input.user ?? WEB_USER,
    text: input.text,
    attachments: input.attachments.map((a) => ({
      id: a.id,
      name: a.name,
      mime: a.mime,
      bytes: a.bytes,
      url: `web-upload:${a.id}`,
    })),
    receivedAtMs: input.receivedAtMs,
    replyContext: { threadId: input.threadId, messageId: input.messageId },
  };
  if (input.command) message.command = input.command;
  return withTypedCommand(message, webProfile.commandTyping);
}

/** A user's message as stored, with the InboundMessage the core receives for it. */
export function userMessage(input: {
  messageId: string;
  threadId: string;
  text: string;
  attachments: WebAttachment[];
  command?: InboundCommand;
}): { message: WebMessage; inbound: InboundMessage } {
  const createdAtMs = Date.now();
  const inbound = toInboundMessage({ ...input, receivedAtMs: createdAtMs });
  const message: WebMessage = {
    id: input.messageId,
    threadId: input.threadId,
    role: 'user',
    createdAtMs,
    text: input.text,
  };
  if (input.attachments.length > 0) message.attachments = input.attachments;
  if (inbound.command) message.command = inbound.command.name;
  return { message, inbound };
}
