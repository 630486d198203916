import type { Language } from '../domain/execution.js';
import type { ModelBehaviour } from '../domain/model-behaviour.js';
import type { ToolCall } from '../ports/llm-client.js';

/**
 * Tool names and argument shapes models are trained on, mapped to run_code. gpt-oss calls its built-in `python`
 * tool (the harmony format's browser and python tools), Qwen's agents call `code_interpreter`, Llama 3.x emits
 * `<|python_tag|>` with raw source, and shell agents call `bash`/`shell` with `command`. What they ask for is what
 * run_code does, so it runs as run_code; the call is rewritten before it is sent back, so the model also sees
 * the real name.
 */

/** The language a trained-on tool name means; `undefined` values take the language from the arguments. */
const TOOL_NAMES: Readonly<Record<string, Language | null>> = {
  run_code: null,
  execute_code: null,
  code_interpreter: null,
  code_execution: null,
  interpreter: null,
  python: 'python',
  python3: 'python',
  ipython: 'python',
  jupyter: 'python',
  execute_python: 'python',
  run_python: 'python',
  python_interpreter: 'python',
  run_python_code: 'python',
  execute_python_code: 'python',
  bash: 'bash',
  sh: 'bash',
  shell: 'bash',
  terminal: 'bash',
  run_bash: 'bash',
  execute_bash: 'bash',
  run_shell: 'bash',
  execute_shell: 'bash',
  execute_command: 'bash',
  run_command: 'bash',
  r: 'r',
  run_r: 'r',
  javascript: 'javascript',
  node: 'javascript',
  run_javascript: 'javascript',
};

/** Keys under which models put the source, in the order they are looked for. */
const CODE_KEYS = ['code', 'source', 'script', 'command', 'cmd', 'program', 'input'] as const;
const LANGUAGE_KEYS = ['language', 'lang'] as const;
/** Labels models give a language, beside the names themselves. */
const LANGUAGE_NAMES: Readonly<Record<string, Language>> = {
  python: 'python',
  python3: 'python',
  py: 'python',
  ipython: 'python',
  bash: 'bash',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  r: 'r',
  javascript: 'javascript',
  js: 'javascript',
  node: 'javascript',
  nodejs: 'javascript',
};

/** A tool name as models write it: `functions.python`, `python<|channel|>commentary`, `Python`. */
export function toolNameOf(name: string): string {
  return (name.split('<|')[0] ?? '')
    .trim()
    .replace(/^(functions|tools?)\./i, '')
    .toLowerCase();
}

/** What a call means once its tool name and arguments are read, or why it cannot run. */
export type ReadCall =
  | {
      ok: true;
      /** The language named by the tool or the arguments; undefined leaves the default to the caller. */
      language: string | undefined;
      code: unknown;
      /** What was mapped (the tool's own name, raw source, another key), for the log and the turn's behaviour. */
      mapped: { behaviour: ModelBehaviour; from: string }[];
    }
  | { ok: false; unknownTool: string }
  | { ok: false; badJson: string };

/** `["bash", "-lc", "ls -l"]` (shell agents' argv form) as the script; other arrays as one command line. */
function commandOf(value: unknown): unknown {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return value;
  const argv = value as string[];
  if (argv.length === 3 && /^(ba|z)?sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv[2];
  return argv.join(' ');
}

/**
 * Reads a call as the run it asks for. JSON arguments name the code under any of the trained-on keys; arguments
 * that are not a JSON object (raw source, or a JSON string) are the code itself. Only a tool name the table does
 * not know is refused.
 */
export function readCall(call: Pick<ToolCall, 'name' | 'arguments'>): ReadCall {
  const name = toolNameOf(call.name);
  if (!Object.hasOwn(TOOL_NAMES, name)) return { ok: false, unknownTool: call.name };
  const toolLanguage = TOOL_NAMES[name] ?? undefined;
  const mapped: { behaviour: ModelBehaviour; from: string }[] =
    call.name === 'run_code' ? [] : [{ behaviour: 'tool_renamed', from: `tool ${call.name}` }];
  const text = call.arguments.trim();
  let raw: unknown;
  try {
    raw = text === '' ? {} : JSON.parse(text);
  } catch (err) {
    // Not JSON: source where JSON belongs. A JSON object that did not parse is a broken call, not source.
    if (text.startsWith('{') && /^\{\s*"/.test(text))
      return { ok: false, badJson: err instanceof Error ? err.message : String(err) };
    mapped.push({ behaviour: 'raw_arguments', from: 'raw source as arguments' });
    return { ok: true, language: toolLanguage, code: call.arguments, mapped };
  }
  if (typeof raw === 'string') {
    mapped.push({ behaviour: 'raw_arguments', from: 'a JSON string as arguments' });
    return { ok: true, language: toolLanguage, code: raw, mapped };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: true, language: toolLanguage, code: undefined, mapped };
  const args = raw as Record<string, unknown>;
  const key = CODE_KEYS.find((k) => args[k] !== undefined);
  if (key && key !== 'code') mapped.push({ behaviour: 'raw_arguments', from: `key "${key}"` });
  const languageKey = LANGUAGE_KEYS.find((k) => typeof args[k] === 'string');
  const named = languageKey ? (args[languageKey] as string) : undefined;
  return {
    ok: true,
    language: named ?? toolLanguage,
    code: key ? commandOf(args[key]) : undefined,
    mapped,
  };
}

/** A language label as models write it (`Python`, `py`, `sh`, `node`) as a Language; undefined for others. */
export function languageOfLabel(label: string): Language | undefined {
  const key = label.trim().toLowerCase();
  return Object.hasOwn(LANGUAGE_NAMES, key) ? LANGUAGE_NAMES[key] : undefined;
}
