/**
 * A signal of one model request that follows the turn's: the `openai` client adds an abort listener to the signal
 * it is given and never removes it, so a turn that passed its own signal to each of its 12 requests kept 12
 * listeners on it (Node's MaxListenersExceededWarning past 10). Each attempt gets its own signal instead, linked to
 * the turn's while the attempt runs and unlinked after.
 */
export function attemptSignal(turn: AbortSignal | undefined): { signal: AbortSignal | undefined; release: () => void } {
  if (!turn) return { signal: undefined, release: () => undefined };
  const attempt = new AbortController();
  const follow = () => attempt.abort(turn.reason);
  if (turn.aborted) follow();
  else turn.addEventListener('abort', follow, { once: true });
  return { signal: attempt.signal, release: () => turn.removeEventListener('abort', follow) };
}
