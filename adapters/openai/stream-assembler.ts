import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { LlmResponse, ToolCall } from '../../src/ports/llm-client.js';
import { mapFinishReason } from './map-messages.js';
import { echoOf, reasoningOf } from './server-fields.js';
import { ThinkFilter } from './think-filter.js';

/** Most characters of content, thinking or one call's arguments assembled; a server could stream forever. */
export const MAX_ASSEMBLED_CHARS = 4 * 1024 * 1024;
/** Most tool calls assembled from one response. */
export const MAX_ASSEMBLED_CALLS = 64;

const append = (text: string, more: string): string =>
  text.length >= MAX_ASSEMBLED_CHARS ? text : (text + more).slice(0, MAX_ASSEMBLED_CHARS);

/**
 * Rebuilds one response from streamed chunks: text deltas are forwarded as they come (thinking left out),
 * tool calls are assembled by `index` (id and name arrive first, arguments in pieces, Gemini's
 * `extra_content` on the first piece), thinking is collected from `reasoning_content`/`reasoning` fields,
 * and usage is taken from the final chunk when the server sends one (some servers ignore `stream_options`
 * and never do; Azure's first chunk has no choices at all).
 */
export class StreamAssembler {
  private refusal = '';
  private sawContent = false;
  private reasoning = '';
  private reasoningField: 'reasoning_content' | 'reasoning' | undefined;
  private readonly calls = new Map<
    number,
    { id: string; name: string; arguments: string; echo?: Record<string, unknown> }
  >();
  private finishReason: string | null = null;
  private usage = { promptTokens: 0, completionTokens: 0 };
  private readonly think: ThinkFilter;

  constructor(
    private readonly onTextDelta?: (delta: string) => void,
    options: { thinkOpen?: boolean } = {},
  ) {
    this.think = new ThinkFilter(options.thinkOpen ?? false);
  }

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
    const thought = reasoningOf(delta);
    if (thought) {
      this.reasoning = append(this.reasoning, thought.text);
      this.reasoningField = thought.field;
    }
    if (typeof delta.content === 'string' && delta.content.length > 0) {
      this.sawContent = true;
      const shown = this.think.push(delta.content);
      if (shown) this.onTextDelta?.(shown);
    }
    if (typeof delta.refusal === 'string') this.refusal = append(this.refusal, delta.refusal);
    for (const part of delta.tool_calls ?? []) {
      const index = part.index ?? this.calls.size;
      if (!this.calls.has(index) && this.calls.size >= MAX_ASSEMBLED_CALLS) continue;
      const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
      // LM Studio sends numeric ids; they go back as the text they are.
      if (part.id !== undefined && part.id !== null && part.id !== '') call.id = String(part.id);
      if (part.function?.name) call.name = append(call.name, part.function.name).slice(0, 200);
      if (part.function?.arguments) call.arguments = append(call.arguments, part.function.arguments);
      const echo = echoOf(part);
      if (echo) call.echo = { ...call.echo, ...echo };
      this.calls.set(index, call);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** The field the server put its thinking in, if any. */
  get thinkingField(): 'reasoning_content' | 'reasoning' | undefined {
    return this.reasoningField;
  }

  /** A `</think>` came without its `<think>`: this server's template opens the block. */
  get templateOpensThinking(): boolean {
    return this.think.loneClose;
  }

  result(): LlmResponse {
    const tail = this.think.end();
    if (tail) this.onTextDelta?.(tail);
    const toolCalls: ToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({
        id: call.id || `call_${index}`,
        name: call.name,
        arguments: call.arguments,
        ...(call.echo ? { echo: call.echo } : {}),
      }));
    const reasoning = [this.reasoning.trim(), this.think.reasoning].filter(Boolean).join('\n\n');
    return {
      content: this.sawContent ? this.think.answer : null,
      ...(reasoning ? { reasoning } : {}),
      toolCalls,
      finishReason: mapFinishReason(this.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop')),
      usage: this.usage,
      ...(this.refusal ? { refusal: this.refusal } : {}),
    };
  }
}
