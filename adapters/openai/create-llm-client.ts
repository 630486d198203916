import type { Config } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import type { LlmClient } from '../../src/ports/llm-client.js';
import { OpenAiLlmClient } from './openai-llm-client.js';

/**
 * The LlmClient for the configuration, or undefined when no model is configured (neither
 * OPENAI_API_KEY nor OPENAI_BASE_URL set): the interpreter then runs direct mode only.
 */
export function createOpenAiLlmClient(settings: Config['llm'], logger: Logger): LlmClient | undefined {
  if (!settings.configured) return undefined;
  return new OpenAiLlmClient({
    apiKey: settings.apiKey,
    baseUrl: settings.baseUrl,
    model: settings.model,
    requestTimeoutMs: settings.requestTimeoutMs,
    maxRetries: settings.maxRetries,
    stream: settings.stream,
    images: settings.images,
    logger,
  });
}
