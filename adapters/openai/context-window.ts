import type { Logger } from '../../src/logger.js';

/** A context window as a server stated it. */
export interface StatedWindow {
  tokens: number;
  /** Where it was read, for the log: `vllm /v1/models max_model_len`, `llama.cpp /props n_ctx`… */
  source: string;
}

/** Options of {@link probeContextWindow}. */
export interface ProbeOptions {
  /** The API's base URL without credentials or query (`http://127.0.0.1:8000/v1`). */
  baseUrl: string;
  model: string;
  /** Headers sent with every probe (the endpoint's authorization). */
  headers?: Record<string, string>;
  /** Query parameters sent with every probe (`?key=`). */
  query?: Record<string, string>;
  /** Time limit of each probe request, in ms. @defaultValue 3000 */
  timeoutMs?: number;
  /** Most bytes read of each answer; a longer one counts as no answer. @defaultValue 1 MiB */
  maxBytes?: number;
  /** Aborts the probes (the user's Stop). */
  signal?: AbortSignal;
  logger: Logger;
  /** @defaultValue globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * Ollama's context length when neither the loaded model (`/api/ps`) nor a `num_ctx` parameter says one: 4096 since
 * v0.6.4 (2048 before; larger only with OLLAMA_CONTEXT_LENGTH or much VRAM), far below most models' own length.
 * Ollama truncates a longer prompt silently, from the front ("truncating input prompt" limit=2048 in its log:
 * ollama/ollama#10368, RooCodeInc/Roo-Code#1372), so the smaller number is the safe one.
 */
export const OLLAMA_DEFAULT_NUM_CTX = 4096;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const positive = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;

/** The server's root: the base URL without its trailing `/v1` (llama.cpp's `/props` and Ollama's `/api` live there). */
function rootOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

async function readJson(response: Response, maxBytes: number): Promise<unknown> {
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > maxBytes) return undefined;
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** vLLM's `GET /v1/models`: `data[].max_model_len` (vllm/entrypoints/openai/protocol.py `ModelCard`). */
function fromModels(body: unknown, model: string): StatedWindow | undefined {
  if (!isObject(body) || !Array.isArray(body.data)) return undefined;
  const card = body.data.find((d) => isObject(d) && d.id === model) as Record<string, unknown> | undefined;
  const tokens = positive(card?.max_model_len);
  return tokens ? { tokens, source: '/v1/models max_model_len' } : undefined;
}

/**
 * llama-server's `GET /props`: `default_generation_settings.n_ctx`, the context of one slot (tools/server/README.md,
 * "GET /props"; a server started with `-c 8192 -np 2` gives each slot 4096).
 */
function fromProps(body: unknown): StatedWindow | undefined {
  if (!isObject(body)) return undefined;
  const settings = isObject(body.default_generation_settings) ? body.default_generation_settings : undefined;
  const tokens = positive(settings?.n_ctx) ?? positive(body.n_ctx);
  return tokens ? { tokens, source: '/props n_ctx' } : undefined;
}

/** `num_ctx` in the `parameters` text of Ollama's `/api/show` (`num_ctx                        8192`). */
function numCtxParameter(parameters: unknown): number | undefined {
  if (typeof parameters !== 'string') return undefined;
  const found = /^num_ctx\s+(\d+)\s*$/m.exec(parameters)?.[1];
  return found ? positive(Number(found)) : undefined;
}

/**
 * Ollama: the loaded model's `context_length` in `GET /api/ps` (what `ollama ps` shows as CONTEXT, ollama/ollama#17889)
 * is what the runner truncates to; else the model's `num_ctx` parameter from `POST /api/show` (docs/api.md, "Show
 * Model Information"); else Ollama's default, capped by the model's own `model_info["<arch>.context_length"]`.
 */
function fromOllama(show: unknown, ps: unknown, model: string): StatedWindow | undefined {
  if (!isObject(show)) return undefined;
  const info = isObject(show.model_info) ? show.model_info : {};
  const arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : undefined;
  const trained = arch ? positive(info[`${arch}.context_length`]) : undefined;
  const loaded =
    isObject(ps) && Array.isArray(ps.models)
      ? ps.models.find((m) => isObject(m) && (m.name === model || m.model === model || m.name === `${model}:latest`))
      : undefined;
  const running = isObject(loaded) ? positive(loaded.context_length) : undefined;
  if (running) return { tokens: running, source: '/api/ps context_length' };
  const numCtx = numCtxParameter(show.parameters);
  if (numCtx) return { tokens: numCtx, source: '/api/show num_ctx' };
  if (!trained) return undefined;
  return { tokens: Math.min(trained, OLLAMA_DEFAULT_NUM_CTX), source: "Ollama's default num_ctx" };
}

/**
 * Asks the server for the model's context window where servers say it: vLLM's model list, llama.cpp's props, then
 * Ollama's ps and show. Each request is bounded in time and size; any failure (a 404 on servers that have no such
 * endpoint, a timeout, an answer too large or not JSON) is logged at debug and the next one is tried. Undefined when
 * none says.
 */
export async function probeContextWindow(o: ProbeOptions): Promise<StatedWindow | undefined> {
  const doFetch = o.fetch ?? globalThis.fetch;
  const root = rootOf(o.baseUrl);
  const ask = async (url: string, init: RequestInit = {}): Promise<unknown> => {
    const target = new URL(url);
    for (const [name, value] of Object.entries(o.query ?? {})) target.searchParams.set(name, value);
    const signals = [AbortSignal.timeout(o.timeoutMs ?? 3000), ...(o.signal ? [o.signal] : [])];
    try {
      const response = await doFetch(target, {
        ...init,
        headers: { accept: 'application/json', ...o.headers, ...(init.headers as Record<string, string>) },
        signal: AbortSignal.any(signals),
      });
      return await readJson(response, o.maxBytes ?? 1024 * 1024);
    } catch (err) {
      o.logger.debug({ url: target.pathname, err: err instanceof Error ? err.message : String(err) }, 'probe failed');
      return undefined;
    }
  };
  const models = fromModels(await ask(`${o.baseUrl.replace(/\/+$/, '')}/models`), o.model);
  if (models || o.signal?.aborted) return models;
  const props = fromProps(await ask(`${root}/props`));
  if (props || o.signal?.aborted) return props;
  const show = await ask(`${root}/api/show`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: o.model }),
  });
  if (!isObject(show)) return undefined;
  return fromOllama(show, await ask(`${root}/api/ps`), o.model);
}
