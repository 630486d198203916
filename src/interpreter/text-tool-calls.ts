/**
 * Tool calls a model wrote as text: what reaches us when a server's tool parser does not match the model
 * (or it has none), so the call arrives as content with `finish_reason: "stop"`. The formats are the
 * models' own chat-template conventions:
 * - Hermes, Qwen: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
 * - Llama 3.1+: `<|python_tag|>{"name": …, "parameters": {…}}` (ending in `<|eom_id|>` or `<|eot_id|>`)
 * - Mistral: `[TOOL_CALLS][{"name": …, "arguments": {…}}]`, and the newer `[TOOL_CALLS]name[ARGS]{…}`
 * - Llama on some servers (and in Groq's failed_generation): `<function=name>{…}</function>`
 * - DeepSeek: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` followed by a ```json block
 * - a reply that is only such a JSON object, bare or in a ```json block.
 */

/** One call found in text: the tool's name and its arguments as JSON text. */
export interface TextToolCall {
  name: string;
  arguments: string;
}

/** Most calls taken from one reply. */
const MAX_CALLS = 16;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.trim()) as unknown;
  } catch {
    return undefined;
  }
}

/** `{name, arguments|parameters}` (or `{function: {name, arguments}}`) as a call; undefined otherwise. */
function callOf(value: unknown): TextToolCall | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  const fn = typeof o.function === 'object' && o.function !== null ? (o.function as Record<string, unknown>) : o;
  const name = fn.name;
  if (typeof name !== 'string' || !/^[A-Za-z_][\w.-]{0,63}$/.test(name)) return undefined;
  const args = fn.arguments ?? fn.parameters ?? {};
  return { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

function callsOf(value: unknown): TextToolCall[] {
  if (Array.isArray(value)) return value.flatMap((v) => callsOf(v));
  const one = callOf(value);
  return one ? [one] : [];
}

type Finder = (text: string) => { calls: TextToolCall[]; rest: string } | undefined;

/** Each format: its pattern, and how a match becomes calls. Matches are removed from the text. */
const FORMATS: Array<{ pattern: RegExp; calls: (m: RegExpExecArray) => TextToolCall[] }> = [
  { pattern: /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g, calls: (m) => callsOf(parseJson(m[1]!)) },
  {
    pattern: /<\|python_tag\|>\s*([\s\S]*?)\s*(?:<\|eom_id\|>|<\|eot_id\|>|$)/g,
    calls: (m) => m[1]!.split(/;\s*(?=\{)/).flatMap((part) => callsOf(parseJson(part))),
  },
  {
    pattern: /\[TOOL_CALLS\]\s*([A-Za-z_][\w.-]*)\s*\[ARGS\]\s*(\{[\s\S]*?\})\s*(?=\[TOOL_CALLS\]|$)/g,
    calls: (m) => (parseJson(m[2]!) === undefined ? [] : [{ name: m[1]!, arguments: m[2]!.trim() }]),
  },
  { pattern: /\[TOOL_CALLS\]\s*(\[[\s\S]*\])/g, calls: (m) => callsOf(parseJson(m[1]!)) },
  {
    pattern: /<function=([A-Za-z_][\w.-]*)>?\s*(\{[\s\S]*?\})\s*>?\s*<\/function>/g,
    calls: (m) => (parseJson(m[2]!) === undefined ? [] : [{ name: m[1]!, arguments: m[2]!.trim() }]),
  },
  {
    pattern:
      /<｜tool▁call▁begin｜>\s*function\s*<｜tool▁sep｜>\s*([A-Za-z_][\w.-]*)\s*```(?:json)?\s*([\s\S]*?)```\s*<｜tool▁call▁end｜>/g,
    calls: (m) => (parseJson(m[2]!) === undefined ? [] : [{ name: m[1]!, arguments: m[2]!.trim() }]),
  },
];

const findInMarkup: Finder = (text) => {
  const calls: TextToolCall[] = [];
  let rest = text;
  for (const format of FORMATS) {
    rest = rest.replace(format.pattern, (...args: unknown[]) => {
      const match = args.slice(0, -2) as unknown as RegExpExecArray;
      const found = format.calls(match);
      calls.push(...found);
      return found.length ? '' : match[0];
    });
  }
  if (calls.length === 0) return undefined;
  rest = rest.replace(/<｜tool▁calls?▁(begin|end)｜>/g, '');
  return { calls, rest };
};

/** A reply that is nothing but a call object: bare JSON, or one ```json block. */
const findWholeJson: Finder = (text) => {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  const body = fenced ? fenced[1]! : text;
  if (!/^\s*[[{]/.test(body)) return undefined;
  const calls = callsOf(parseJson(body));
  return calls.length ? { calls, rest: '' } : undefined;
};

/**
 * The tool calls written in `text`, naming one of `tools`, and the text without them. Calls to other
 * names are kept (the round answers them as unknown tools), so a model is told rather than ignored.
 * Returns no calls for text with none.
 */
export function toolCallsInText(text: string, tools: readonly string[]): { calls: TextToolCall[]; rest: string } {
  const markup = findInMarkup(text);
  if (markup) return { calls: markup.calls.slice(0, MAX_CALLS), rest: markup.rest.trim() };
  // A bare JSON object is only a call when it names one of our tools: data a model printed is not.
  const whole = findWholeJson(text);
  if (whole && whole.calls.some((c) => tools.includes(c.name)))
    return { calls: whole.calls.slice(0, MAX_CALLS), rest: '' };
  return { calls: [], rest: text };
}
