/** The code every new thread runs: a pandas import and a print, answered in direct mode (no model). */
const MESSAGE = '```python\nimport pandas as pd\nprint(pd.__version__)\n```';
/** A burst's answers must come within this, or the bench fails rather than wait forever. */
const ANSWER_TIMEOUT_MS = 120_000;

/** The value below which a share `q` of the sorted samples lie (nearest rank). */
export const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;

/** Waits for the `reply` event of a thread's event stream; resolves with the time it came. */
async function replyTime(base: string, threadId: string, signal: AbortSignal): Promise<() => Promise<number>> {
  const response = await fetch(`${base}/api/threads/${threadId}/events`, { signal });
  if (!response.ok || !response.body) throw new Error(`events of ${threadId}: HTTP ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  return async () => {
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the event stream of ${threadId} ended before its answer`);
      text += decoder.decode(value, { stream: true });
      if (/^event: reply$/m.test(text)) {
        const at = performance.now();
        await reader.cancel();
        return at;
      }
      if (text.length > 1_000_000) text = text.slice(-1000);
    }
  };
}

/**
 * Starts `n` new threads at once through the web chat's API at `base`, each running a pandas import, and times
 * each from its message to its answer, in ms (unsorted).
 */
export async function burst(base: string, n: number): Promise<number[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ANSWER_TIMEOUT_MS);
  try {
    const threads = await Promise.all(
      Array.from({ length: n }, async () => {
        const created = await fetch(`${base}/api/threads`, { method: 'POST', signal: abort.signal });
        const { thread } = (await created.json()) as { thread: { id: string } };
        return { id: thread.id, answered: await replyTime(base, thread.id, abort.signal) };
      }),
    );
    return await Promise.all(
      threads.map(async (t) => {
        const started = performance.now();
        const posted = await fetch(`${base}/api/threads/${t.id}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: MESSAGE }),
          signal: abort.signal,
        });
        if (posted.status !== 202) throw new Error(`posting to ${t.id}: HTTP ${posted.status} ${await posted.text()}`);
        return (await t.answered()) - started;
      }),
    );
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
