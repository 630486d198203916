import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ContentPart, LlmMessage, ToolSpec } from '../../src/ports/llm-client.js';

function userContent(content: string | ContentPart[], images: boolean): string | ChatCompletionContentPart[] {
  if (typeof content === 'string') return content;
  return content.map((part): ChatCompletionContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (!images) return { type: 'text', text: '[image omitted: this model is configured without image input]' };
    return { type: 'image_url', image_url: { url: `data:${part.mime};base64,${part.base64}` } };
  });
}

/** Maps our messages to Chat Completions messages; image parts become data URLs, or a note when images are off. */
export function toOpenAiMessages(messages: LlmMessage[], options: { images: boolean }): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: userContent(message.content, options.images) };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
      case 'assistant':
        return {
          role: 'assistant',
          content: message.content,
          ...(message.toolCalls?.length
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        };
    }
  });
}

/** Maps our tool specs to Chat Completions function tools. */
export function toOpenAiTools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** Maps an API finish reason to ours. */
export function mapFinishReason(
  reason: string | null | undefined,
): 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other' {
  if (reason === 'stop' || reason === 'tool_calls' || reason === 'length' || reason === 'content_filter') return reason;
  if (reason === 'function_call') return 'tool_calls';
  return 'other';
}
