/**
 * Fields that servers add to the Chat Completions shape and the `openai` types do not name: read here,
 * from untrusted JSON, in one place.
 */

/** Most characters of one echoed field kept; a thought signature is a few KiB. */
const MAX_ECHO_CHARS = 256 * 1024;

/**
 * The thinking in a message or delta: `reasoning_content` (DeepSeek, vLLM, llama.cpp's `deepseek` format)
 * or `reasoning` (OpenRouter, Groq's `parsed` format, Ollama, newer vLLM), with the field's name.
 */
export function reasoningOf(part: unknown): { field: 'reasoning_content' | 'reasoning'; text: string } | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const o = part as Record<string, unknown>;
  for (const field of ['reasoning_content', 'reasoning'] as const) {
    const value = o[field];
    if (typeof value === 'string' && value.length > 0) return { field, text: value };
  }
  return undefined;
}

/**
 * What a server attached to a tool call and wants back unchanged with the next request: Gemini's
 * `extra_content` (its thought signature). Bounded: a larger value is dropped rather than cut, since a
 * cut signature would be refused anyway.
 */
export function echoOf(call: unknown): Record<string, unknown> | undefined {
  if (typeof call !== 'object' || call === null) return undefined;
  const extra = (call as Record<string, unknown>).extra_content;
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) return undefined;
  if (JSON.stringify(extra).length > MAX_ECHO_CHARS) return undefined;
  return { extra_content: extra };
}
