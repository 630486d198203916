import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ContentPart, LlmMessage, ToolSpec } from '../../src/ports/llm-client.js';
import type { Dialect } from './dialect.js';

/** Put between a tool result and a user message for servers that refuse that order (Mistral). */
export const BRIDGE_TEXT = '(Tool results received.)';

function userContent(content: string | ContentPart[], images: boolean): string | ChatCompletionContentPart[] {
  if (typeof content === 'string') return content;
  return content.map((part): ChatCompletionContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (!images) return { type: 'text', text: '[image omitted: this model is configured without image input]' };
    return { type: 'image_url', image_url: { url: `data:${part.mime};base64,${part.base64}` } };
  });
}

/** What of the dialect the mapping needs; all off by default (the ideal protocol). */
export type MessageDialect = Pick<Dialect, 'reasoningBack' | 'reasoningField' | 'noUserAfterTool'>;

/**
 * Maps our messages to Chat Completions messages: image parts become data URLs (or a note when images are
 * off), what the server attached to a tool call goes back with it, thinking goes back to servers that
 * require it, and a short assistant turn separates a tool result from a user message where that order is
 * refused.
 */
export function toOpenAiMessages(
  messages: LlmMessage[],
  options: { images: boolean; dialect?: MessageDialect },
): ChatCompletionMessageParam[] {
  const dialect = options.dialect;
  const out: ChatCompletionMessageParam[] = [];
  for (const message of messages) {
    if (message.role === 'user' && dialect?.noUserAfterTool && out.at(-1)?.role === 'tool')
      out.push({ role: 'assistant', content: BRIDGE_TEXT });
    out.push(toOpenAiMessage(message, options.images, dialect));
  }
  return out;
}

function toOpenAiMessage(message: LlmMessage, images: boolean, dialect?: MessageDialect): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: userContent(message.content, images) };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const reasoning =
        dialect?.reasoningBack && message.reasoning
          ? { [dialect.reasoningField ?? 'reasoning_content']: message.reasoning }
          : {};
      return {
        role: 'assistant',
        content: message.content,
        ...reasoning,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                ...call.echo,
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    }
  }
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
