/**
 * The catalogue of model servers FakeOpenAiServer can play (issue 24): for each server and variant, its dialect and
 * how a user configures Threadlab for it. End-to-end tests loop over `MODEL_SERVERS`, start
 * `new FakeOpenAiServer({ dialect: entry.dialect(), steps })` and point `OPENAI_BASE_URL`, `OPENAI_MODEL` and
 * `OPENAI_API_KEY` at it with `threadlabEnv(entry, server)`. Each server's file cites what its dialect follows.
 */
import type { FakeOpenAiServer } from '../fake-openai-server.js';
import { AZURE_SERVERS } from './azure.js';
import { DEEPSEEK_SERVERS } from './deepseek.js';
import type { ModelServerEntry } from './dialect.js';
import { GEMINI_SERVERS } from './gemini.js';
import { GROQ_SERVERS } from './groq.js';
import { LLAMA_CPP_SERVERS } from './llama-cpp.js';
import { LM_STUDIO_SERVERS } from './lm-studio.js';
import { MISTRAL_SERVERS } from './mistral.js';
import { OLLAMA_SERVERS } from './ollama.js';
import { OPENAI_REASONING_SERVERS } from './openai-reasoning.js';
import { OPENROUTER_SERVERS } from './openrouter.js';
import { VLLM_SERVERS } from './vllm.js';

export type { ModelServerEntry, ServerDialect, ThreadlabConfig } from './dialect.js';
export { azure } from './azure.js';
export { deepseek } from './deepseek.js';
export { gemini } from './gemini.js';
export { groq } from './groq.js';
export { llamaCpp } from './llama-cpp.js';
export { lmStudio } from './lm-studio.js';
export { mistral } from './mistral.js';
export { ollama } from './ollama.js';
export { openaiReasoning } from './openai-reasoning.js';
export { openrouter } from './openrouter.js';
export { vllm } from './vllm.js';

/** Every server and variant of issue 24. */
export const MODEL_SERVERS: ModelServerEntry[] = [
  ...OLLAMA_SERVERS,
  ...VLLM_SERVERS,
  ...LLAMA_CPP_SERVERS,
  ...LM_STUDIO_SERVERS,
  ...AZURE_SERVERS,
  ...GEMINI_SERVERS,
  ...MISTRAL_SERVERS,
  ...GROQ_SERVERS,
  ...OPENROUTER_SERVERS,
  ...DEEPSEEK_SERVERS,
  ...OPENAI_REASONING_SERVERS,
];

/** The catalogue entry named `name`. */
export function modelServer(name: string): ModelServerEntry {
  const entry = MODEL_SERVERS.find((candidate) => candidate.name === name);
  if (!entry) throw new Error(`no model server named ${name}`);
  return entry;
}

/** The environment that points Threadlab at a started fake of `entry`. */
export function threadlabEnv(
  entry: ModelServerEntry,
  server: FakeOpenAiServer,
): { OPENAI_BASE_URL: string; OPENAI_MODEL: string; OPENAI_API_KEY?: string } {
  const { origin } = new URL(server.baseUrl);
  return {
    OPENAI_BASE_URL: `${origin}${entry.threadlab.baseUrlSuffix}`,
    OPENAI_MODEL: entry.threadlab.model,
    ...(entry.threadlab.apiKey !== undefined ? { OPENAI_API_KEY: entry.threadlab.apiKey } : {}),
  };
}
