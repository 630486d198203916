import { z } from 'zod';
import { BASE_LANGUAGES, type Language } from '../domain/execution.js';
import type { ModelBehaviour } from '../domain/model-behaviour.js';
import type { ToolCall, ToolSpec } from '../ports/llm-client.js';
import { languageOfLabel, readCall } from './tool-aliases.js';
import type { Turn } from './turn.js';

export const RUN_CODE_TOOL = 'run_code';

const LANGUAGE_NOTES: Record<Language, string> = {
  python: 'Python keeps its variables between calls, like a notebook',
  bash: 'bash runs shell commands in the same /mnt/data',
  r: 'R keeps its variables and loaded libraries between calls too (ggplot and plot() charts are shown)',
  javascript: 'JavaScript (Node) keeps its top-level bindings between calls, with top-level await',
};

/**
 * The one tool the model has: run code in the thread's sandbox, in one of `languages` (those the image has,
 * see languagesOf). @defaultValue python and bash
 */
export function runCodeSpec(languages: readonly Language[] = BASE_LANGUAGES): ToolSpec {
  return {
    name: RUN_CODE_TOOL,
    description:
      "Run code in this thread's sandbox (working directory /mnt/data, no network, shared by every language). " +
      `${languages.map((l) => LANGUAGE_NOTES[l]).join('; ')}. Returns status, stdout, stderr, the error with its ` +
      'traceback, displayed values and the files created or changed.',
    parameters: {
      type: 'object',
      properties: {
        language: { type: 'string', enum: [...languages], description: languages.join(', ') },
        code: { type: 'string', description: 'The code to run.' },
      },
      required: ['language', 'code'],
      additionalProperties: false,
    },
  };
}

export type ParsedToolCall =
  | {
      ok: true;
      language: Language;
      code: string;
      /** Set when the call used a trained-on tool name or argument shape (see tool-aliases.ts): what was mapped. */
      mapped?: { behaviour: ModelBehaviour; from: string }[];
    }
  | { ok: false; error: string; unknownTool?: boolean };

/** How a correct call looks, in the texts that tell the model what was wrong. */
const example = (languages: readonly Language[]): string =>
  `{"language": ${languages.map((l) => `"${l}"`).join(' | ')}, "code": string}`;

/**
 * Validates one tool call of the model. Tool names and argument shapes models are trained on (`python`,
 * `code_interpreter`, `bash` with `command`, raw source instead of JSON) are read as run_code; anything else
 * wrong comes back as an error text for the model to correct, never as an exception.
 */
export function parseToolCall(call: ToolCall, languages: readonly Language[] = BASE_LANGUAGES): ParsedToolCall {
  const read = readCall(call);
  if (!read.ok && 'unknownTool' in read) {
    return {
      ok: false,
      unknownTool: true,
      error:
        `Error: unknown tool "${read.unknownTool}". Nothing ran. The only tool is ${RUN_CODE_TOOL}, called with ` +
        `JSON arguments ${example(languages)}, for example {"language": "python", "code": "print(1)"}.`,
    };
  }
  if (!read.ok) {
    return {
      ok: false,
      error:
        `Error: the arguments of ${RUN_CODE_TOOL} are not valid JSON (${read.badJson}). Nothing ran. Call ` +
        `${RUN_CODE_TOOL} again with a JSON object such as {"language": "python", "code": "print(1)"}.`,
    };
  }
  const runCodeArgs = z.object({
    language: z.enum(languages as [Language, ...Language[]]).default('python'),
    code: z.string().min(1, { error: 'code must not be empty' }),
  });
  const language = read.language === undefined ? undefined : (languageOfLabel(read.language) ?? read.language);
  const parsed = runCodeArgs.safeParse({ language, code: read.code });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    return {
      ok: false,
      error: `Error: invalid arguments for ${RUN_CODE_TOOL} (${issues}). Nothing ran. Expected ${example(languages)}.`,
    };
  }
  return {
    ok: true,
    language: parsed.data.language,
    code: parsed.data.code,
    ...(read.mapped.length > 0 ? { mapped: read.mapped } : {}),
  };
}

/**
 * The call as run_code with JSON arguments, for a call that parsed: what is sent back to the server in the
 * conversation, so the model sees the real tool (and servers that check names against the tools they were
 * given accept the history). The call's id and echoed fields are kept.
 */
export function canonicalCall(call: ToolCall, parsed: Extract<ParsedToolCall, { ok: true }>): ToolCall {
  if (!parsed.mapped) return call;
  return { ...call, name: RUN_CODE_TOOL, arguments: JSON.stringify({ language: parsed.language, code: parsed.code }) };
}

/** Records and logs what was mapped in a call that ran as run_code under another name or shape. */
export function noteMapped(
  turn: Pick<Turn, 'behaviour' | 'logger'>,
  call: ToolCall,
  parsed: Extract<ParsedToolCall, { ok: true }>,
): void {
  if (!parsed.mapped) return;
  for (const m of parsed.mapped) turn.behaviour.note(m.behaviour);
  const mapped = parsed.mapped.map((m) => m.from).join(', ');
  turn.logger.info({ tool: call.name, mapped, language: parsed.language }, "model's call run as run_code");
}
