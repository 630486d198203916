/** The model client from configuration, recording each turn's exchanges when THREADLAB_LLM_RECORD is set. */
import type { Config } from '../src/config/index.js';
import { parseEndpointUrl } from '../src/domain/endpoint-url.js';
import type { Logger } from '../src/logger.js';
import type { LlmClient } from '../src/ports/llm-client.js';
import type { ModelMemory } from '../src/domain/model-memory.js';
import { currentAuditScope } from '../src/governance/audit/audit-scope.js';
import { OpenAiLlmClient, recordingFetch, TurnRecorder } from '../adapters/openai/index.js';

/** The model client, or undefined when no model is configured: the interpreter then runs direct mode only. */
export function createLlmClient(config: Config, logger: Logger, models?: ModelMemory): LlmClient | undefined {
  const { llm } = config;
  if (!llm.configured) return undefined;
  return new OpenAiLlmClient({
    ...(llm.apiKey ? { apiKey: llm.apiKey } : {}),
    ...(llm.baseUrl ? { baseUrl: llm.baseUrl } : {}),
    model: llm.model,
    requestTimeoutMs: llm.requestTimeoutMs,
    maxRetries: llm.maxRetries,
    stream: llm.stream,
    images: llm.images,
    ...(llm.dialect ? { dialect: llm.dialect } : {}),
    ...(config.llmRecord.recordDir ? { fetch: recordedFetch(config, logger) } : {}),
    logger,
    ...(models ? { memory: models } : {}),
  });
}

/** THREADLAB_LLM_RECORD: `fetch` that writes each turn's (each job's) model exchanges to a file of its own. */
function recordedFetch(config: Config, logger: Logger): typeof fetch {
  const { llm, llmRecord: record } = config;
  const sink = new TurnRecorder({
    dir: record.recordDir!,
    maxBytes: record.recordMaxBytes,
    keepFiles: record.recordFiles,
    secrets: config.secrets,
    endpoint: parseEndpointUrl(llm.baseUrl ?? 'https://api.openai.com/v1').display,
    settings: {
      model: llm.model,
      stream: llm.stream,
      tools: llm.tools,
      images: llm.images,
      ...(llm.temperature !== undefined ? { temperature: llm.temperature } : {}),
      maxRounds: llm.maxRounds,
      tokenBudget: llm.tokenBudget,
      maxRetries: llm.maxRetries,
      ...(llm.dialect ? { dialect: llm.dialect } : {}),
      verifyFigures: llm.verifyFigures,
      memoryTokens: llm.memoryTokens,
    },
    turnOf: () => {
      const scope = currentAuditScope();
      return scope && { thread: scope.thread, job: scope.job };
    },
    logger: logger.child({ component: 'llm-record' }),
  });
  return recordingFetch(globalThis.fetch, { sink, keepFiles: record.recordFiles, maxBodyChars: record.recordMaxBytes });
}
