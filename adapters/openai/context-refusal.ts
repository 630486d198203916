import type { ServerError } from './error-body.js';

/** What a server said when it refused a request as longer than its context window. */
export interface ContextRefusal {
  /** The model's window, in the server's tokens, when it said it. */
  windowTokens?: number;
  /** The prompt's size, in the server's tokens, when it said it (the completion's share left out). */
  promptTokens?: number;
}

/**
 * The wordings of a context-length refusal, one per server family:
 * - vLLM `_validate_input` (vllm/entrypoints/openai/serving_engine.py): "This model's maximum context length is 4096
 *   tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the
 *   length of the messages or completion." (vllm-project/vllm#20409); newer releases: "… However, your request has
 *   5000 input tokens. Please reduce the length of the input messages." DeepSeek's API answers in vLLM's words.
 * - OpenAI (code `context_length_exceeded`, also Groq's code): "This model's maximum context length is 8192 tokens.
 *   However, your messages resulted in 9100 tokens. Please reduce the length of the messages."
 * - llama.cpp's llama-server (tools/server, `ERROR_TYPE_EXCEED_CONTEXT_SIZE`): 400, type `exceed_context_size_error`,
 *   "request (4476 tokens) exceeds the available context size (4096 tokens)" with `n_prompt_tokens` and `n_ctx`
 *   beside it; older builds: "the request exceeds the available context size, try increasing it".
 * - Mistral: "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length".
 * - Ollama (ollama/ollama#17889): some models refuse with a 400 naming the loaded context length; most truncate
 *   silently (see context-window.ts).
 */
const CONTEXT_WORDS =
  /maximum context length|context length (is|of|exceeded)|exceeds? the (available )?context (size|window|length)|context[_ ]window|too large for model with \d+ maximum context|reduce the length of the (input )?messages|prompt is too long|input is too long|exceed_context_size/i;

const WINDOW_PATTERNS = [
  /maximum context length is (\d[\d,]*)/i,
  /available context size \((\d[\d,]*) tokens\)/i,
  /model with (\d[\d,]*) maximum context length/i,
  /context (?:length|window|size) (?:is|of) (\d[\d,]*)/i,
];

const PROMPT_PATTERNS = [
  /\((\d[\d,]*) in the messages/i,
  /your request has (\d[\d,]*) input tokens/i,
  /messages resulted in (\d[\d,]*) tokens/i,
  /request \((\d[\d,]*) tokens\) exceeds/i,
  /prompt contains (\d[\d,]*) tokens/i,
  /you requested (\d[\d,]*) tokens/i,
];

function firstNumber(text: string, patterns: RegExp[]): number | undefined {
  for (const pattern of patterns) {
    const found = pattern.exec(text)?.[1];
    if (found) return Number(found.replace(/,/g, ''));
  }
  return undefined;
}

/** The refusal's numbers when `e` says the request is longer than the model's context window; else undefined. */
export function contextRefusalOf(e: ServerError): ContextRefusal | undefined {
  const byCode = e.code === 'context_length_exceeded' || e.type === 'exceed_context_size_error';
  // "'max_tokens' … is too large" is about the completion we asked for, which a shorter prompt also fixes.
  if (!byCode && !CONTEXT_WORDS.test(e.message)) return undefined;
  const windowTokens = e.contextTokens ?? firstNumber(e.message, WINDOW_PATTERNS);
  const promptTokens = e.promptTokens ?? firstNumber(e.message, PROMPT_PATTERNS);
  return {
    ...(windowTokens && windowTokens > 0 ? { windowTokens } : {}),
    ...(promptTokens && promptTokens > 0 ? { promptTokens } : {}),
  };
}
