// The page's only way to the server: the same JSON API and event stream a script would use (API.md).

async function call(method, path, body) {
  const init = { method, headers: {} };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    // No answer at all (the bot restarting or stopped): say so, not the browser's bare "Failed to fetch".
    throw new Error('Threadlab cannot be reached right now (it may be restarting); try again in a moment.');
  }
  if (res.status === 204) return {};
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error?.message ?? `${method} ${path} failed with ${res.status}`);
  return data;
}

export const api = {
  info: () => call('GET', '/api/info'),
  listThreads: () => call('GET', '/api/threads').then((d) => d.threads),
  createThread: () => call('POST', '/api/threads', {}).then((d) => d.thread),
  deleteThread: (id) => call('DELETE', `/api/threads/${id}`),
  /** One page of history, oldest first: `{ messages, hasMore, before }`; pass `before` back for the page before it. */
  messages: (id, before) =>
    call('GET', `/api/threads/${id}/messages${before ? `?before=${encodeURIComponent(before)}` : ''}`),
  send: (id, text, files) => {
    const form = new FormData();
    form.set('text', text);
    for (const file of files) form.append('file', file, file.name);
    return call('POST', `/api/threads/${id}/messages`, form).then((d) => d.message);
  },
  /** Edits a user message and runs it again: `{ message, unchanged? }`. */
  editMessage: (id, messageId, text) => call('POST', `/api/threads/${id}/messages/${messageId}/edit`, { text }),
  stop: (id) => call('POST', `/api/threads/${id}/stop`),
  reset: (id) => call('POST', `/api/threads/${id}/reset`),
  /** Code waiting for Run or Skip in a thread. */
  approvals: (id) => call('GET', `/api/threads/${id}/approvals`).then((d) => d.approvals),
  /** Runs (`run`) or skips (`skip`) code waiting for approval. */
  decide: (id, approvalId, action) => call('POST', `/api/threads/${id}/approvals/${approvalId}`, { action }),
  /** 👍 (`good`) or 👎 (`bad`) on an answer of the model, with an optional comment. */
  feedback: (id, messageId, verdict, comment) =>
    call('POST', `/api/threads/${id}/messages/${messageId}/feedback`, comment ? { verdict, comment } : { verdict }),
};

/**
 * Opens the event stream of a thread. `handlers` maps event names (state, message, reply, progress,
 * idle, stopping, resync) to callbacks receiving the parsed data. EventSource reconnects by itself and
 * sends Last-Event-ID, so nothing is missed. Returns a function that closes the stream.
 */
export function subscribe(threadId, handlers) {
  const source = new EventSource(`/api/threads/${threadId}/events`);
  for (const [name, handler] of Object.entries(handlers)) {
    source.addEventListener(name, (e) => handler(JSON.parse(e.data)));
  }
  return () => source.close();
}
