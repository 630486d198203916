export { OpenAiLlmClient, type OpenAiLlmClientOptions } from './openai-llm-client.js';
export { mapOpenAiError } from './map-error.js';
