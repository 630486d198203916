import type { OpenFileLimit } from './open-file-limit.js';

/** What the web chat may hold open, within the process's open-file limit. */
export interface ConnectionCaps {
  /** Connections served; a request on one past it is answered 503 and the connection closed. */
  maxConnections: number;
  /** Connections past `maxConnections` accepted only to be told 503; beyond them Node closes at once. */
  refusalConnections: number;
  /** Open event streams; more are refused with 503. */
  maxStreams: number;
}

/** Most connections kept for refusals, and for plain requests (health, the API) above the streams. */
const MAX_HEADROOM = 64;

/**
 * The configured caps, lowered to fit the open-file limit. An eighth of the descriptors (at least 256)
 * stays for everything but the web chat's connections: the ops server's health and metrics, Docker and
 * Redis connections, logs, the files of uploads and exports. Of the rest, some connections are kept to
 * answer refusals, and above the streams some for ordinary requests, so that `/api/health` answers when
 * every stream is taken. With no known limit the configured caps stand.
 */
export function connectionCaps(options: {
  maxConnections: number;
  maxStreams: number;
  openFiles: OpenFileLimit | undefined;
}): ConnectionCaps {
  const soft = options.openFiles?.soft ?? Number.POSITIVE_INFINITY;
  const reserved = Math.max(256, Math.ceil(soft / 8));
  const budget = Number.isFinite(soft) ? Math.max(8, soft - reserved) : Number.POSITIVE_INFINITY;
  const refusalConnections = Math.min(MAX_HEADROOM, Math.floor(budget / 8));
  const maxConnections = Math.max(2, Math.min(options.maxConnections, budget - refusalConnections));
  const requestHeadroom = Math.min(MAX_HEADROOM, Math.max(1, Math.floor(maxConnections / 8)));
  const maxStreams = Math.max(1, Math.min(options.maxStreams, maxConnections - requestHeadroom));
  return { maxConnections, refusalConnections, maxStreams };
}
