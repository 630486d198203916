import { fencedBlocks, RUN_WORD, SCRIPT_EXTENSIONS, scriptKindOf } from '../domain/code-cells.js';
import { languageFromLabel, type Language } from '../domain/execution.js';
import type { Intent } from '../domain/intent.js';
import type { InboundAttachment, InboundCommand, InboundMessage } from '../domain/messages.js';
import { sqlBlockOf } from '../domain/sql-run.js';

export type { Intent } from '../domain/intent.js';

const WHOLE_BLOCK = /^\s*```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```[ \t]*\s*$/;

/**
 * The intent of a message. Its command (`message.command`: native, or typed and read by the adapter as its
 * platform spells it) wins; then a message that is only one fenced block in a language the sandbox runs; then
 * `run` (or `run <name>`) with an attached script, or `run` alone; anything else asks the model. Knows no
 * platform. Pure: no I/O. Evaluated once per message: the result rides on the job (`Job.intent`).
 */
export function intentOf(message: InboundMessage): Intent {
  if (message.command) return fromCommand(message.command, message.attachments);
  const direct = parseDirectCode(message.text);
  if (direct) return { kind: 'run', ...direct };
  const query = parseDirectQuery(message.text);
  if (query) return { kind: 'query', ...query };
  const run = RUN_WORD.exec(message.text);
  if (run && (message.attachments.length > 0 || run[1] === undefined)) return scriptIntent(message.attachments, run[1]);
  return { kind: 'ask', text: message.text };
}

/**
 * Which attachment runs as a script: the one named, else the only script among them; otherwise a `problem` that
 * says what to send instead.
 */
export function scriptIntent(attachments: readonly InboundAttachment[], named?: string): Intent {
  if (named !== undefined) {
    const wanted = named.toLowerCase();
    const found = attachments.find((a) => a.name.toLowerCase() === wanted);
    if (!found) return { kind: 'runScript', problem: `No file named \`${named}\` is attached to this message.` };
    if (!scriptKindOf(found.name))
      return {
        kind: 'runScript',
        problem: `\`${found.name}\` is not a script I run: attach a ${SCRIPT_EXTENSIONS} file.`,
      };
    return { kind: 'runScript', attachment: found.id };
  }
  const scripts = attachments.filter((a) => scriptKindOf(a.name));
  if (scripts.length === 1) return { kind: 'runScript', attachment: scripts[0]!.id };
  if (scripts.length === 0)
    return {
      kind: 'runScript',
      problem: `Nothing to run: attach a script (${SCRIPT_EXTENSIONS}) and send it with \`run\`, or send code in a fenced block.`,
    };
  const names = scripts.slice(0, 5).map((a) => `\`${a.name}\``);
  return {
    kind: 'runScript',
    problem: `Several scripts are attached (${names.join(', ')}${scripts.length > 5 ? ', …' : ''}): send \`run ${scripts[0]!.name}\` to say which one runs; the other files are put in \`/mnt/data\`.`,
  };
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

/** A message that is one sql fence (```sql, its source on the first line): a query to run as is. */
export const parseDirectQuery = sqlBlockOf;

function fromCommand(command: InboundCommand, attachments: readonly InboundAttachment[]): Intent {
  switch (command.name) {
    case 'run':
      return { kind: 'run', language: command.language, code: command.code };
    case 'runMessage': {
      // Its fenced blocks; a message with none but a script attached runs the script.
      const blocks = fencedBlocks(command.text);
      if (blocks.cells.length === 0 && attachments.some((a) => scriptKindOf(a.name))) return scriptIntent(attachments);
      return { kind: 'runCells', cells: blocks.cells, skipped: blocks.skipped };
    }
    case 'query':
      return { kind: 'query', body: command.body, info: command.info };
    case 'schedule':
      return { kind: 'schedule', text: command.text };
    default:
      return { kind: command.name };
  }
}
