import type { ChatCompletion } from 'openai/resources/chat/completions';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { LlmResponse, ToolCall } from '../../src/ports/llm-client.js';
import { mapFinishReason } from './map-messages.js';
import { echoOf, reasoningOf } from './server-fields.js';
import { splitThinking } from './think-filter.js';

/**
 * Reads a whole (non-streamed) completion: the answer without its thinking, the thinking from a reasoning
 * field or `<think>` blocks, and the tool calls with what the server wants back on each.
 */
export function wholeResponse(
  completion: ChatCompletion,
  thinkOpen: boolean,
): { response: LlmResponse; reasoningField?: 'reasoning_content' | 'reasoning'; templateOpensThinking: boolean } {
  const choice = completion.choices?.[0];
  if (!choice?.message)
    throw new ThreadlabError('llm_api', 'The model server returned no choices.', { isRetryable: true });
  const message = choice.message;
  const toolCalls: ToolCall[] = (message.tool_calls ?? []).flatMap((call) => {
    if (call.type !== 'function' || !call.function) return [];
    const echo = echoOf(call);
    return [
      {
        id: String(call.id),
        name: call.function.name,
        arguments: call.function.arguments ?? '',
        ...(echo ? { echo } : {}),
      },
    ];
  });
  const field = reasoningOf(message);
  const split = typeof message.content === 'string' ? splitThinking(message.content, thinkOpen) : undefined;
  const reasoning = [field?.text.trim(), split?.reasoning].filter(Boolean).join('\n\n');
  return {
    response: {
      content: split ? split.answer : null,
      ...(reasoning ? { reasoning } : {}),
      toolCalls,
      finishReason: mapFinishReason(choice.finish_reason),
      usage: {
        promptTokens: completion.usage?.prompt_tokens ?? 0,
        completionTokens: completion.usage?.completion_tokens ?? 0,
      },
      ...(message.refusal ? { refusal: message.refusal } : {}),
    },
    ...(field ? { reasoningField: field.field } : {}),
    templateOpensThinking: split?.loneClose ?? false,
  };
}
