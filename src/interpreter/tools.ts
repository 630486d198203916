import { z } from 'zod';
import { BASE_LANGUAGES, type Language } from '../domain/execution.js';
import type { ToolCall, ToolSpec } from '../ports/llm-client.js';

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

export type ParsedToolCall = { ok: true; language: Language; code: string } | { ok: false; error: string };

/**
 * Validates one tool call of the model. Anything wrong comes back as an error text for the model to
 * correct, never as an exception.
 */
export function parseToolCall(call: ToolCall, languages: readonly Language[] = BASE_LANGUAGES): ParsedToolCall {
  if (call.name !== RUN_CODE_TOOL) {
    return { ok: false, error: `Error: unknown tool "${call.name}". The only tool is ${RUN_CODE_TOOL}.` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(call.arguments.trim() === '' ? '{}' : call.arguments);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      error:
        `Error: the arguments of ${RUN_CODE_TOOL} are not valid JSON (${reason}). Nothing ran. Call ` +
        `${RUN_CODE_TOOL} again with a JSON object such as {"language": "python", "code": "print(1)"}.`,
    };
  }
  const runCodeArgs = z.object({
    language: z.enum(languages as [Language, ...Language[]]).default('python'),
    code: z.string().min(1, { error: 'code must not be empty' }),
  });
  const parsed = runCodeArgs.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    return {
      ok: false,
      error: `Error: invalid arguments for ${RUN_CODE_TOOL} (${issues}). Nothing ran. Expected {"language": ${languages.map((l) => `"${l}"`).join(' | ')}, "code": string}.`,
    };
  }
  return { ok: true, language: parsed.data.language, code: parsed.data.code };
}
