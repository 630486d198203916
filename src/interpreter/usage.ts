import type { LlmMessage, LlmResponse } from '../ports/llm-client.js';
import { estimateTokens } from './text-cut.js';

/** Rough token cost of one image part, for servers that report no usage. */
const IMAGE_TOKENS = 800;

function messageTokens(message: LlmMessage): number {
  if (message.role === 'user' && Array.isArray(message.content)) {
    return message.content.reduce(
      (sum, part) => sum + (part.type === 'text' ? estimateTokens(part.text) : IMAGE_TOKENS),
      4,
    );
  }
  const calls = message.role === 'assistant' ? (message.toolCalls ?? []) : [];
  const text = typeof message.content === 'string' ? message.content : '';
  return 4 + estimateTokens(text) + calls.reduce((sum, c) => sum + estimateTokens(c.arguments) + 8, 0);
}

/**
 * Estimates usage when the server reports none (some local servers omit it): about four characters
 * a token for the prompt, and the response's text and tool arguments for the completion.
 */
export function estimateUsage(
  messages: LlmMessage[],
  response: LlmResponse | undefined,
): { promptTokens: number; completionTokens: number } {
  const promptTokens = messages.reduce((sum, m) => sum + messageTokens(m), 0);
  const completionTokens = response
    ? estimateTokens(response.content ?? '') +
      response.toolCalls.reduce((sum, c) => sum + estimateTokens(c.arguments) + 8, 0)
    : 0;
  return { promptTokens, completionTokens };
}
