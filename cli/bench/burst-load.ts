import { cpus } from 'node:os';

/** The code every new thread runs: a pandas import and a print, answered in direct mode (no model). */
const MESSAGE = '```python\nimport pandas as pd\nprint(pd.__version__)\n```';
/** A burst's answers must come within this, or the bench fails rather than wait forever. */
const ANSWER_TIMEOUT_MS = 120_000;
/** How much of a refusal's body is kept to say why: a refusal is a short JSON error. */
const MAX_REASON_CHARS = 200;

/** The value below which a share `q` of the sorted samples lie (nearest rank). */
export const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;

/** What one burst did: the answered threads' times, and the threads the bot refused (with why). */
export interface BurstOutcome {
  /** From each answered thread's message to its answer, in ms (unsorted). */
  timesMs: number[];
  /** One entry per refused thread: `HTTP <status> <code>`, as the web chat's API answered. */
  refused: string[];
  /** CPU time the whole host spent during the burst, all cores together, in seconds (other processes included). */
  hostCpuS: number;
}

/** The host's busy CPU time so far, all cores together, in ms (os.cpus(): user, nice, sys and irq). */
export function hostBusyMs(): number {
  return cpus().reduce((sum, { times: t }) => sum + t.user + t.nice + t.sys + t.irq, 0);
}

/** Why the API refused a request: its status and the error's code, from a bounded read of the body. */
async function refusal(response: Response): Promise<string> {
  const body = (await response.text().catch(() => '')).slice(0, MAX_REASON_CHARS);
  let code = '';
  try {
    code = String((JSON.parse(body) as { error?: { code?: unknown } }).error?.code ?? '');
  } catch {
    code = body.replace(/\s+/g, ' ').trim();
  }
  return `HTTP ${response.status}${code ? ` ${code}` : ''}`;
}

/** Waits for the `reply` event of a thread's event stream; resolves with the time it came. */
async function replyTime(base: string, threadId: string, signal: AbortSignal): Promise<() => Promise<number>> {
  const response = await fetch(`${base}/api/threads/${threadId}/events`, { signal });
  if (!response.ok || !response.body) throw new Error(`events of ${threadId}: HTTP ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  return async () => {
    let text = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the event stream of ${threadId} ended before its answer`);
        text += decoder.decode(value, { stream: true });
        if (/^event: reply$/m.test(text)) return performance.now();
        if (text.length > 1_000_000) text = text.slice(-1000);
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  };
}

type Started = { refused: string } | { id: string; answered: () => Promise<number> };

/** Opens one thread and its event stream; a thread the API refuses to open is a refusal, not a failure. */
async function openThread(base: string, signal: AbortSignal): Promise<Started> {
  const created = await fetch(`${base}/api/threads`, { method: 'POST', signal });
  if (created.status !== 201) return { refused: await refusal(created) };
  const { thread } = (await created.json()) as { thread: { id: string } };
  return { id: thread.id, answered: await replyTime(base, thread.id, signal) };
}

/**
 * Starts `n` new threads at once through the web chat's API at `base`, each running a pandas import, and times
 * each from its message to its answer. A thread whose opening or message the bot refuses (a limit's 429 or 503,
 * too many threads) is counted as refused with the API's reason; an answer that never comes within
 * ANSWER_TIMEOUT_MS fails the bench.
 */
export async function burst(base: string, n: number): Promise<BurstOutcome> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ANSWER_TIMEOUT_MS);
  const cpuBefore = hostBusyMs();
  try {
    const threads = await Promise.all(Array.from({ length: n }, () => openThread(base, abort.signal)));
    const outcomes = await Promise.all(
      threads.map(async (t): Promise<number | string> => {
        if ('refused' in t) return t.refused;
        const started = performance.now();
        const posted = await fetch(`${base}/api/threads/${t.id}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: MESSAGE }),
          signal: abort.signal,
        });
        if (posted.status !== 202) return refusal(posted);
        return (await t.answered()) - started;
      }),
    );
    return {
      timesMs: outcomes.filter((o): o is number => typeof o === 'number'),
      refused: outcomes.filter((o): o is string => typeof o === 'string'),
      hostCpuS: (hostBusyMs() - cpuBefore) / 1000,
    };
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
