import { languageFromLabel, type Language } from '../domain/execution.js';
import type { InboundCommand, InboundMessage } from '../domain/messages.js';
import type { Platform } from '../domain/thread-key.js';

/**
 * What a message asks for, decided once for every platform: the runtime acts on `stop` when it
 * arrives, the thread worker on the rest when the job runs.
 */
export type Intent =
  | { kind: 'stop' }
  | { kind: 'reset' }
  | { kind: 'files' }
  | { kind: 'help' }
  /** The thread as a Jupyter notebook and a requirements.txt. */
  | { kind: 'export' }
  /** Today's spend against the daily budgets of the user and the workspace. */
  | { kind: 'usage' }
  /** Code to run as is, without the model: a platform's run command, or a message that is one fenced block. */
  | { kind: 'run'; language: Language; code: string }
  /** Anything else is for the model; `text` is empty when the message only brings files. */
  | { kind: 'ask'; text: string };

/** The commands about a thread's state, which a user can also type as a message on some platforms. */
const THREAD_COMMANDS = ['reset', 'files', 'help', 'stop', 'export', 'usage'] as const;

/**
 * What goes before a typed command's word, per platform; none where commands are never typed.
 * Slack's slash command cannot name its thread, so in a thread the bare word is the command; the web
 * chat takes `/reset`; Discord's commands are native slash commands, and the CLI has options instead.
 */
const TYPED_COMMAND_PREFIX: Record<Platform, string | undefined> = {
  slack: '',
  web: '/',
  discord: undefined,
  cli: undefined,
};

/**
 * How `export` is typed on each platform. Discord and the CLI take it typed too: Discord's /export slash command
 * cannot be used in every client, and the CLI has no option for it (`threadlab chat --thread K /export`).
 */
const TYPED_EXPORT: Record<Platform, string> = { slack: 'export', web: '/export', discord: 'export', cli: '/export' };

const WHOLE_BLOCK = /^\s*```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```[ \t]*\s*$/;

/**
 * The intent of a message. A platform's native command (`message.command`) wins; then a thread
 * command typed as the whole message, as its platform spells it; then a message that is only one
 * fenced block in a language the sandbox runs; anything else asks the model. Pure: no I/O.
 */
export function intentOf(message: InboundMessage): Intent {
  if (message.command) return fromCommand(message.command);
  const typed = typedCommand(message.text, message.thread.platform);
  if (typed) return { kind: typed };
  const direct = parseDirectCode(message.text);
  if (direct) return { kind: 'run', ...direct };
  return { kind: 'ask', text: message.text };
}

/**
 * Recognises a message whose whole content is one fenced code block (```python, ```py, ```bash,
 * ```sh, or unlabelled for python). Such a message runs as is, without the model. Returns undefined
 * for anything else, including blocks in other languages and text around the block.
 */
export function parseDirectCode(text: string): { language: Language; code: string } | undefined {
  const match = WHOLE_BLOCK.exec(text);
  if (!match) return undefined;
  const language = languageFromLabel(match[1]!);
  const code = match[2]!;
  if (!language || code.trim() === '') return undefined;
  // A second fence inside means several blocks with text between them, not one block.
  if (/^[ \t]*```/m.test(code)) return undefined;
  return { language, code };
}

function fromCommand(command: InboundCommand): Intent {
  return command.name === 'run'
    ? { kind: 'run', language: command.language, code: command.code }
    : { kind: command.name };
}

function typedCommand(text: string, platform: Platform): (typeof THREAD_COMMANDS)[number] | undefined {
  const prefix = TYPED_COMMAND_PREFIX[platform];
  const typed = text.trim().toLowerCase();
  if (typed === TYPED_EXPORT[platform]) return 'export';
  // The CLI takes `/usage` typed, like `/export`: it has no option for it.
  if (platform === 'cli' && typed === '/usage') return 'usage';
  if (prefix === undefined || !typed.startsWith(prefix)) return undefined;
  const word = typed.slice(prefix.length);
  return THREAD_COMMANDS.find((name) => name === word);
}
