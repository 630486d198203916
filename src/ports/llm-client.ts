/** A tool the model may call, described with a JSON schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model produced it; may be malformed. */
  arguments: string;
}

export type ContentPart = { type: 'text'; text: string } | { type: 'image'; mime: string; base64: string };

export type LlmMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ContentPart[] }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface LlmRequest {
  messages: LlmMessage[];
  tools: ToolSpec[];
  temperature?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
  /** Streamed text of the answer as it arrives. */
  onTextDelta?: (delta: string) => void;
}

export interface LlmResponse {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';
  usage: { promptTokens: number; completionTokens: number };
  /** A refusal message, when the model refused. */
  refusal?: string;
}

/**
 * A chat model with tool calling. Implementations retry what is retryable and throw ThreadlabError
 * (`llm_api`, `llm_rate_limited`) for the rest.
 */
export interface LlmClient {
  readonly model: string;
  /** Whether tool results may include images for this model. */
  readonly acceptsImages: boolean;
  complete(request: LlmRequest): Promise<LlmResponse>;
}
