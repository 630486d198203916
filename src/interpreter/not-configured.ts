/** The reply to natural language when no LLM is configured: how to configure one, and what works without. */
export const NOT_CONFIGURED_TEXT = [
  'No language model is configured, so I can only run code directly.',
  '',
  'To let me write and run code for you, set these environment variables and restart Threadlab:',
  '- `OPENAI_API_KEY` — the API key of an OpenAI-compatible service (OpenAI, Azure OpenAI, …)',
  '- `OPENAI_BASE_URL` — for another endpoint or a local server, e.g. `http://127.0.0.1:11434/v1` for Ollama (a key is then optional)',
  '- `OPENAI_MODEL` — the model name (default `gpt-4.1-mini`)',
  '',
  'Meanwhile, send a message that is only a fenced code block and I will run it as is:',
  '```python',
  'print("hello")',
  '```',
].join('\n');
