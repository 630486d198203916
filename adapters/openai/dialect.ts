import { ThreadlabError } from '../../src/domain/errors.js';

/**
 * How one OpenAI-compatible server (an endpoint and a model) differs from the ideal protocol: what it
 * refuses, where its thinking comes, what must go back to it. Learned from its answers while the process
 * runs (see dialect-learning.ts), seeded from the URL (Azure) and `THREADLAB_LLM_DIALECT`.
 */
export interface Dialect {
  /** How the key is sent: `Authorization: Bearer` (OpenAI and most), or Azure's `api-key` header. */
  auth: 'bearer' | 'api-key';
  /** Request fields the server refused, left out from then on. */
  omit: Set<OmittableField>;
  /** `max_completion_tokens` instead of `max_tokens` (OpenAI's reasoning models refuse the latter). */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** The field the server puts its thinking in, once seen; sent back under the same name when required. */
  reasoningField?: 'reasoning_content' | 'reasoning';
  /** The server requires the thinking of this turn's assistant messages back (DeepSeek's thinking mode with tools). */
  reasoningBack: boolean;
  /** The server opens a `<think>` block in its chat template, so content starts inside it (only `</think>` is sent). */
  thinkOpen: boolean;
  /** The server refuses a user message right after a tool message (Mistral): a short assistant turn goes between. */
  noUserAfterTool: boolean;
  /** The server streams requests that carry tools (llama-server builds before spring 2025 refused). */
  streamWithTools: boolean;
}

/** Fields that a server may refuse and that the request works without. */
export type OmittableField = 'temperature' | 'stream_options' | 'tool_choice' | 'parallel_tool_calls' | 'top_p';

export const OMITTABLE: readonly OmittableField[] = [
  'temperature',
  'stream_options',
  'tool_choice',
  'parallel_tool_calls',
  'top_p',
];

/** Azure OpenAI serves deployments under `/openai/deployments/` and versions every call with `api-version`. */
export function looksLikeAzure(url: URL): boolean {
  return (
    /\.(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/i.test(url.hostname) ||
    /\/openai\/deployments\//i.test(url.pathname) ||
    url.searchParams.has('api-version')
  );
}

/** The dialect a server starts with before any answer: the ideal protocol, with Azure's header when the URL says so. */
export function initialDialect(baseUrl: string): Dialect {
  let azure = false;
  try {
    azure = looksLikeAzure(new URL(baseUrl));
  } catch {
    azure = false;
  }
  return {
    auth: azure ? 'api-key' : 'bearer',
    omit: new Set(),
    maxTokensField: 'max_tokens',
    reasoningBack: false,
    thinkOpen: false,
    noUserAfterTool: false,
    streamWithTools: true,
  };
}

/** Every word `THREADLAB_LLM_DIALECT` accepts, with what it sets. */
const WORDS: Record<string, (d: Dialect) => void> = {
  'auth=bearer': (d) => (d.auth = 'bearer'),
  'auth=api-key': (d) => (d.auth = 'api-key'),
  'max-completion-tokens': (d) => (d.maxTokensField = 'max_completion_tokens'),
  'reasoning-back': (d) => (d.reasoningBack = true),
  'think-open': (d) => (d.thinkOpen = true),
  'no-user-after-tool': (d) => (d.noUserAfterTool = true),
  'no-stream-with-tools': (d) => (d.streamWithTools = false),
  ...Object.fromEntries(OMITTABLE.map((f) => [`no-${f.replace(/_/g, '-')}`, (d: Dialect) => d.omit.add(f)])),
};

/** The words of `THREADLAB_LLM_DIALECT`, for its description and its error message. */
export const DIALECT_WORDS = Object.keys(WORDS);

/**
 * Applies `THREADLAB_LLM_DIALECT` (comma-separated words such as `auth=api-key,no-temperature`) to a
 * dialect: the rare server whose refusals cannot be learned from its answers. Throws `config_invalid`
 * naming the unknown word.
 */
export function applyDialectOverride(dialect: Dialect, override: string | undefined): Dialect {
  for (const raw of (override ?? '').split(',')) {
    const word = raw.trim().toLowerCase();
    if (!word) continue;
    const set = WORDS[word];
    if (!set)
      throw new ThreadlabError(
        'config_invalid',
        `THREADLAB_LLM_DIALECT: unknown word "${raw.trim()}"; expected a comma-separated list of: ${DIALECT_WORDS.join(', ')}.`,
      );
    set(dialect);
  }
  return dialect;
}

/** A short description of what differs from the ideal protocol, for logs and `threadlab doctor`. */
export function describeDialect(d: Dialect): string[] {
  const facts: string[] = [];
  if (d.auth === 'api-key') facts.push('key in the api-key header (Azure)');
  for (const f of d.omit) facts.push(`no ${f}`);
  if (d.maxTokensField === 'max_completion_tokens') facts.push('max_completion_tokens');
  if (d.reasoningField) facts.push(`thinking in ${d.reasoningField}${d.reasoningBack ? ', sent back' : ''}`);
  if (d.thinkOpen) facts.push('thinking opened by the chat template');
  if (d.noUserAfterTool) facts.push('no user message right after a tool result');
  if (!d.streamWithTools) facts.push('requests with tools not streamed');
  return facts;
}
