export { OpenAiLlmClient, type OpenAiLlmClientOptions } from './openai-llm-client.js';
export { createOpenAiLlmClient } from './create-llm-client.js';
export { mapOpenAiError } from './map-error.js';
