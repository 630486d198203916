import { languageFromLabel, type Language } from '../domain/execution.js';
import type { Intent } from '../domain/intent.js';
import type { InboundCommand, InboundMessage } from '../domain/messages.js';

export type { Intent } from '../domain/intent.js';

const WHOLE_BLOCK = /^\s*```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```[ \t]*\s*$/;

/**
 * The intent of a message. Its command (`message.command`: native, or typed and read by the adapter as its
 * platform spells it) wins; then a message that is only one fenced block in a language the sandbox runs;
 * anything else asks the model. Knows no platform. Pure: no I/O. Evaluated once per message: the result
 * rides on the job (`Job.intent`).
 */
export function intentOf(message: InboundMessage): Intent {
  if (message.command) return fromCommand(message.command);
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
  if (command.name === 'run') return { kind: 'run', language: command.language, code: command.code };
  if (command.name === 'schedule') return { kind: 'schedule', text: command.text };
  return { kind: command.name };
}
