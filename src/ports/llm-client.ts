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
  /**
   * Fields the server attached to this call that it wants back unchanged with the next request (Gemini's
   * `extra_content` thought signature). Opaque to the core; the client that read them writes them back.
   */
  echo?: Record<string, unknown>;
}

export type ContentPart = { type: 'text'; text: string } | { type: 'image'; mime: string; base64: string };

export type LlmMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      toolCalls?: ToolCall[];
      /** The model's thinking for this message: never shown, sent back only to servers that require it. */
      reasoning?: string;
    }
  | { role: 'tool'; toolCallId: string; content: string };

export interface LlmRequest {
  messages: LlmMessage[];
  tools: ToolSpec[];
  temperature?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
  /** Streamed text of the answer as it arrives (thinking left out). */
  onTextDelta?: (delta: string) => void;
}

export interface LlmResponse {
  /** The answer text, with any thinking (`<think>` blocks, reasoning fields) taken out. */
  content: string | null;
  /** The model's thinking, when the server sent it (a reasoning field or `<think>` in the content). */
  reasoning?: string;
  toolCalls: ToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';
  usage: { promptTokens: number; completionTokens: number };
  /** A refusal message, when the model refused. */
  refusal?: string;
}

/**
 * A chat model, with or without tool calling. Implementations adapt to what their server accepts, retry
 * what is retryable, and throw ThreadlabError for the rest: `llm_unreachable` (no HTTP answer),
 * `llm_refused` (the server refused the request: its reason and the setting to change),
 * `llm_context_exceeded` (the request is longer than the model's context window; `details.windowTokens` and
 * `details.requestedTokens` when the server said them), `llm_tools_unsupported` (it refuses tools: the core falls back to fenced code blocks), `llm_rate_limited`
 * and `llm_api` (failures a later try may not have).
 */
export interface LlmClient {
  readonly model: string;
  /** The endpoint as it may be shown (credentials redacted): with `model`, the key of what is learned about it. */
  readonly endpoint?: string;
  /** Whether tool results may include images for this model. */
  readonly acceptsImages: boolean;
  complete(request: LlmRequest): Promise<LlmResponse>;
  /**
   * The model's context window in tokens where the server says it (its model list, props or show endpoint, or the
   * numbers of a context-length refusal), learned once per process; undefined when the server does not say.
   * Never throws: a failed probe is logged and counts as unknown.
   */
  contextWindow?(options?: { signal?: AbortSignal }): Promise<number | undefined>;
  /** What is known of the server beyond the ideal protocol (parameters left out, auth header…), for `doctor`. */
  dialectFacts?(): string[];
}
