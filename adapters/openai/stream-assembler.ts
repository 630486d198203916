import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { LlmResponse, ToolCall } from '../../src/ports/llm-client.js';
import { mapFinishReason } from './map-messages.js';

/**
 * Rebuilds one response from streamed chunks: text deltas are forwarded as they come, tool calls are
 * assembled by `index` (id and name arrive first, arguments in pieces), and usage is taken from the
 * final chunk when the server sends one (some servers ignore `stream_options` and never do).
 */
export class StreamAssembler {
  private content = '';
  private refusal = '';
  private sawContent = false;
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  private finishReason: string | null = null;
  private usage = { promptTokens: 0, completionTokens: 0 };

  constructor(private readonly onTextDelta?: (delta: string) => void) {}

  push(chunk: ChatCompletionChunk): void {
    if (chunk.usage) {
      this.usage = {
        promptTokens: chunk.usage.prompt_tokens ?? 0,
        completionTokens: chunk.usage.completion_tokens ?? 0,
      };
    }
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content.length > 0) {
      this.sawContent = true;
      this.content += delta.content;
      this.onTextDelta?.(delta.content);
    }
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    for (const part of delta.tool_calls ?? []) {
      const index = part.index ?? this.calls.size;
      const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
      this.calls.set(index, call);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  result(): LlmResponse {
    const toolCalls: ToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ id: call.id || `call_${index}`, name: call.name, arguments: call.arguments }));
    return {
      content: this.sawContent ? this.content : null,
      toolCalls,
      finishReason: mapFinishReason(this.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop')),
      usage: this.usage,
      ...(this.refusal ? { refusal: this.refusal } : {}),
    };
  }
}
