export { OpenAiLlmClient, type OpenAiLlmClientOptions } from './openai-llm-client.js';
export { mapOpenAiError } from './map-error.js';
export { recordingFetch } from './recording-fetch.js';
export { TurnRecorder } from './turn-recorder.js';
