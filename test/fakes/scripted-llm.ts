import type { Language } from '../../src/domain/execution.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import type { LlmClient, LlmMessage, LlmRequest, LlmResponse, ToolCall } from '../../src/ports/llm-client.js';

/** One scripted step: a response, an error to throw, or a function of the request. */
export type ScriptedStep = LlmResponse | Error | ((request: LlmRequest, index: number) => LlmResponse | Error);

export interface ScriptedLlmOptions {
  steps?: ScriptedStep[];
  /** Used when the script is exhausted. @defaultValue throws, so a test sees an unexpected extra call */
  fallback?: ScriptedStep;
  model?: string;
  acceptsImages?: boolean;
  /** Split answer text into deltas of this many characters for `onTextDelta`. @defaultValue 8 */
  deltaChars?: number;
}

/** A recorded request: a deep copy of the messages, so later mutation by the caller cannot hide what was sent. */
export interface RecordedRequest {
  messages: LlmMessage[];
  tools: string[];
  temperature?: number;
}

let callSeq = 0;

/** A tool call of run_code with well-formed arguments. */
export function runCodeCall(code: string, language: Language = 'python', id = `call_${++callSeq}`): ToolCall {
  return { id, name: 'run_code', arguments: JSON.stringify({ language, code }) };
}

/** A response that calls tools. */
export function toolCalls(
  calls: ToolCall[],
  usage = { promptTokens: 100, completionTokens: 20 },
  content: string | null = null,
): LlmResponse {
  return { content, toolCalls: calls, finishReason: 'tool_calls', usage };
}

/** A response that asks to run one piece of code. */
export function runCode(
  code: string,
  language: 'python' | 'bash' = 'python',
  usage?: LlmResponse['usage'],
): LlmResponse {
  return toolCalls([runCodeCall(code, language)], usage);
}

/** A final text answer. */
export function answer(text: string, usage = { promptTokens: 100, completionTokens: 20 }): LlmResponse {
  return { content: text, toolCalls: [], finishReason: 'stop', usage };
}

/**
 * An LlmClient that replays a script and records every request. Honours `signal` (throws
 * `cancelled`) and streams answer text through `onTextDelta`.
 */
export class ScriptedLlm implements LlmClient {
  readonly model: string;
  readonly acceptsImages: boolean;
  readonly requests: RecordedRequest[] = [];
  private readonly steps: ScriptedStep[];

  constructor(private readonly options: ScriptedLlmOptions = {}) {
    this.model = options.model ?? 'scripted-model';
    this.acceptsImages = options.acceptsImages ?? true;
    this.steps = [...(options.steps ?? [])];
  }

  /** Appends steps to the script. */
  push(...steps: ScriptedStep[]): void {
    this.steps.push(...steps);
  }

  /** Steps not consumed yet. */
  get remaining(): number {
    return this.steps.length;
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    if (request.signal?.aborted) throw new ThreadlabError('cancelled', 'The model request was cancelled.');
    const index = this.requests.length;
    this.requests.push({
      messages: structuredClone(request.messages),
      tools: request.tools.map((t) => t.name),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    });
    const step = this.steps.shift() ?? this.options.fallback;
    if (step === undefined) throw new Error(`ScriptedLlm: no step left for request #${index + 1}`);
    const outcome = typeof step === 'function' ? step(request, index) : step;
    if (outcome instanceof Error) throw outcome;
    const size = this.options.deltaChars ?? 8;
    for (let i = 0; outcome.content && i < outcome.content.length; i += size)
      request.onTextDelta?.(outcome.content.slice(i, i + size));
    return structuredClone(outcome);
  }
}
