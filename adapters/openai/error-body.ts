/** What a server said when it refused a request, whatever the shape of its error body. */
export interface ServerError {
  /** Its own words, cut to a readable length. */
  message: string;
  code?: string;
  param?: string;
  type?: string;
  /** Groq's `failed_generation`: what the model wrote when the server could not parse it as a tool call. */
  failedGeneration?: string;
  /** llama.cpp's `n_ctx` beside a context-length refusal: the window, in tokens. */
  contextTokens?: number;
  /** llama.cpp's `n_prompt_tokens` beside a context-length refusal: the prompt's size, in tokens. */
  promptTokens?: number;
}

/** Most bytes of an error body read; the rest is not needed to quote the reason. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Longest reason quoted to a user. */
const MAX_REASON_CHARS = 600;

const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : undefined;

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function cut(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_REASON_CHARS ? `${flat.slice(0, MAX_REASON_CHARS - 1)}…` : flat;
}

/** FastAPI's validation errors: `{"detail": [{"loc": [...], "msg": "..."}]}`. */
function detailText(detail: unknown): string | undefined {
  if (typeof detail === 'string') return detail;
  if (!Array.isArray(detail)) return undefined;
  const parts = detail.flatMap((d) => {
    if (!isObject(d)) return [];
    const loc = Array.isArray(d.loc) ? d.loc.join('.') : undefined;
    const msg = str(d.msg);
    return msg ? [loc ? `${loc}: ${msg}` : msg] : [];
  });
  return parts.length ? parts.join('; ') : undefined;
}

/** Reads one error object: `{message, code, param, type}` and the fields servers add. */
function fromObject(o: Record<string, unknown>): ServerError | undefined {
  const metadata = isObject(o.metadata) ? o.metadata : undefined;
  // OpenRouter puts the upstream provider's own words in metadata.raw.
  const raw = metadata ? str(metadata.raw) : undefined;
  const provider = metadata ? str(metadata.provider_name) : undefined;
  const base = str(o.message) ?? detailText(o.detail) ?? str(o.msg) ?? str(o.error_message);
  if (!base) return undefined;
  const message = raw && !base.includes(raw) ? `${base} (${provider ? `${provider}: ` : ''}${raw})` : base;
  return {
    message: cut(message),
    ...(str(o.code) ? { code: str(o.code)! } : str(o.status) ? { code: str(o.status)! } : {}),
    ...(str(o.param) ? { param: str(o.param)! } : {}),
    ...(str(o.type) ? { type: str(o.type)! } : {}),
    ...(str(o.failed_generation) ? { failedGeneration: str(o.failed_generation)! } : {}),
    ...(count(o.n_ctx) ? { contextTokens: count(o.n_ctx)! } : {}),
    ...(count(o.n_prompt_tokens) ? { promptTokens: count(o.n_prompt_tokens)! } : {}),
  };
}

/**
 * The reason in an error body of any shape servers use: `{"error": {...}}` (OpenAI, llama.cpp, Ollama,
 * Groq, Azure), `{"error": "text"}` (LM Studio), `{"object": "error", "message": ...}` (vLLM, Mistral),
 * `{"detail": ...}` (FastAPI servers), `[{"error": {...}}]` (Gemini), or plain text.
 */
export function serverErrorOf(body: unknown): ServerError | undefined {
  if (typeof body === 'string') {
    const text = body.trim();
    if (!text) return undefined;
    try {
      return serverErrorOf(JSON.parse(text) as unknown) ?? { message: cut(text) };
    } catch {
      // HTML error pages: their text, not their markup.
      return { message: cut(text.replace(/<[^>]*>/g, ' ')) };
    }
  }
  if (Array.isArray(body)) {
    for (const item of body) {
      const found = serverErrorOf(item);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObject(body)) return undefined;
  const error = body.error;
  if (typeof error === 'string' && error.trim()) {
    const inner = fromObject(body);
    return { ...inner, message: cut(inner && inner.message !== error ? `${error}: ${inner.message}` : error) };
  }
  if (isObject(error)) return fromObject(error) ?? fromObject(body);
  return fromObject(body);
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/**
 * A `fetch` for the `openai` client that rewrites every error body into `{"error": {...}}`, the one shape
 * the client reads: other shapes would reach the user as "400 status code (no body)". The reason is the
 * server's own; the body read is bounded.
 */
export function normalizingFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status < 400) return response;
    const text = await readCapped(response, MAX_ERROR_BODY_BYTES);
    const found = serverErrorOf(text) ?? { message: `${response.status} ${response.statusText}`.trim() };
    const error = {
      message: found.message,
      ...(found.code ? { code: found.code } : {}),
      ...(found.param ? { param: found.param } : {}),
      ...(found.type ? { type: found.type } : {}),
      ...(found.failedGeneration ? { failed_generation: found.failedGeneration } : {}),
      ...(found.contextTokens ? { n_ctx: found.contextTokens } : {}),
      ...(found.promptTokens ? { n_prompt_tokens: found.promptTokens } : {}),
    };
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    headers.set('content-type', 'application/json');
    return new Response(JSON.stringify({ error }), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}
