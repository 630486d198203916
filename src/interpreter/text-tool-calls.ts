/**
 * Tool calls a model wrote as text: what reaches us when a server's tool parser does not match the model
 * (or it has none), so the call arrives as content with `finish_reason: "stop"`. The formats are the
 * models' own chat-template conventions:
 * - Hermes, Qwen: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
 * - Llama 3.1+: `<|python_tag|>{"name": …, "parameters": {…}}` (ending in `<|eom_id|>` or `<|eot_id|>`), or
 *   `<|python_tag|>` followed by raw Python for its built-in code interpreter (run as the `python` tool)
 * - Mistral: `[TOOL_CALLS][{"name": …, "arguments": {…}}]`, and the newer `[TOOL_CALLS]name[ARGS]{…}`
 * - Llama on some servers (and in Groq's failed_generation): `<function=name>{…}</function>`
 * - DeepSeek: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` followed by a ```json block
 * - LM Studio's default format for models without native tool use: `[TOOL_REQUEST]{…}[END_TOOL_REQUEST]`, left in
 *   the content when LM Studio cannot parse it (the end marker may be missing)
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
    calls: (m) => {
      const json = m[1]!.split(/;\s*(?=\{)/).flatMap((part) => callsOf(parseJson(part)));
      // Llama 3.x's built-in code interpreter: `<|python_tag|>` followed by Python itself, not a JSON call.
      if (json.length > 0 || !m[1]!.trim() || m[1]!.trim().startsWith('{')) return json;
      return [{ name: 'python', arguments: m[1]! }];
    },
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

/**
 * The JSON object that starts at `start` (a `{`), by balanced braces outside strings, and where it ends. An
 * object the text ends inside (a call cut off, or written without its last braces, as LM Studio leaves one it
 * could not parse) is closed with the braces it lacks.
 */
function objectAt(text: string, start: number): { json: string; end: number } | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth += 1;
    else if (c === '}' && --depth === 0) return { json: text.slice(start, i + 1), end: i + 1 };
    else if (c === '[' && depth > 0 && text.startsWith('[END_TOOL_REQUEST]', i))
      return { json: text.slice(start, i).trimEnd() + '}'.repeat(depth), end: i };
  }
  return inString || depth === 0
    ? undefined
    : { json: text.slice(start).trimEnd() + '}'.repeat(depth), end: text.length };
}

/** `[TOOL_REQUEST]{…}[END_TOOL_REQUEST]` (LM Studio), read with a brace scan: the end marker may be missing. */
function toolRequests(text: string): { calls: TextToolCall[]; rest: string } {
  const calls: TextToolCall[] = [];
  let rest = '';
  let from = 0;
  const marker = /\[TOOL_REQUEST\]\s*/g;
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    const start = m.index + m[0].length;
    const object = text[start] === '{' ? objectAt(text, start) : undefined;
    const found = object ? callsOf(parseJson(object.json)) : [];
    if (found.length === 0 || !object) continue;
    calls.push(...found);
    rest += text.slice(from, m.index);
    from = object.end;
    const close = /^\s*\[END_TOOL_REQUEST\]/.exec(text.slice(from));
    if (close) from += close[0].length;
    marker.lastIndex = from;
  }
  return { calls, rest: rest + text.slice(from) };
}

const findInMarkup: Finder = (text) => {
  const requested = toolRequests(text);
  const calls: TextToolCall[] = [...requested.calls];
  let rest = requested.rest;
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
