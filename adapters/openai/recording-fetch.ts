import type { RequestLine, ResponseLine } from './recording-format.js';
import { recordedBody, recordedHeaders } from './recording-redact.js';

/** One request as the recorder takes it (its sequence number and time are the turn file's to give). */
export type RecordedRequest = Pick<RequestLine, 'method' | 'url' | 'headers' | 'body'>;
/** How one response ended, as the recorder takes it. */
export type RecordedResponse = Omit<ResponseLine, 'type' | 'seq'>;

/** Where the exchanges go: a request begins one, unless it belongs to no turn (then nothing is recorded). */
export interface ExchangeSink {
  begin(request: RecordedRequest): ExchangeRecord | undefined;
}

/** The rest of one exchange: its response, or the network error that stood for it. */
export interface ExchangeRecord {
  response(response: RecordedResponse): void;
  networkError(message: string): void;
}

/** Options of {@link recordingFetch}. */
export interface RecordingFetchOptions {
  sink: ExchangeSink;
  /** Keep file contents (previews, images) in recorded request bodies. */
  keepFiles: boolean;
  /** Most characters of one response body kept; the sink refuses a line past its file's cap anyway. */
  maxBodyChars: number;
}

function urlOf(input: Parameters<typeof fetch>[0]): URL {
  return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
}

/** The events of a `text/event-stream` body, each without the blank line that ended it. */
export function sseEvents(text: string): string[] {
  const events = text.split(/\r\n\r\n|\n\n|\r\r/);
  if (events.at(-1) === '') events.pop();
  return events;
}

/**
 * The body as it passes to the client unchanged, its text kept (up to `maxChars`) and handed to `done` once it
 * ended: read to its end, cancelled by the reader (the client aborted), or failed midway.
 */
function tapBody(
  body: ReadableStream<Uint8Array>,
  maxChars: number,
  done: (text: string, end: ResponseLine['end']) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  const finish = (end: ResponseLine['end']): void => {
    if (ended) return;
    ended = true;
    if (end === 'complete' && text.length <= maxChars) text += decoder.decode();
    done(text, end);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: over, value } = await reader.read();
        if (over) {
          finish('complete');
          controller.close();
          return;
        }
        if (text.length <= maxChars) text += decoder.decode(value, { stream: true });
        controller.enqueue(value);
      } catch (err) {
        finish('failed');
        controller.error(err);
      }
    },
    cancel(reason) {
      finish('cancelled');
      return reader.cancel(reason);
    },
  });
}

/**
 * A `fetch` that records each exchange as it crossed the wire: the request (headers with credentials redacted,
 * the JSON body with file contents left out unless kept) and the raw response (status, headers, the body or a
 * stream's SSE events, as the server sent them), while the client reads the response unchanged. The openai
 * package takes a custom `fetch` (ClientOptions.fetch, "Customizing the fetch client" in its README:
 * https://github.com/openai/openai-node#customizing-the-fetch-client), so the loop knows nothing of this.
 */
export function recordingFetch(inner: typeof fetch, options: RecordingFetchOptions): typeof fetch {
  return async (input, init) => {
    const url = urlOf(input);
    const rawBody = typeof init?.body === 'string' ? init.body : undefined;
    const record = options.sink.begin({
      method: (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase(),
      url: `${url.pathname}${url.search}`,
      headers: recordedHeaders(new Headers(init?.headers)),
      body: recordedBody(rawBody, options.keepFiles),
    });
    if (!record) return inner(input, init);
    const startedMs = Date.now();
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (err) {
      record.networkError((err as Error).message ?? String(err));
      throw err;
    }
    const headers = recordedHeaders(response.headers);
    const streamed = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const answer = (text: string, end: ResponseLine['end']): void =>
      record.response({
        durationMs: Date.now() - startedMs,
        status: response.status,
        headers,
        ...(streamed ? { events: sseEvents(text) } : { body: text }),
        end,
      });
    if (!response.body) {
      answer('', 'complete');
      return response;
    }
    const body = tapBody(response.body, options.maxBodyChars, answer);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
