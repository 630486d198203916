import type { Logger } from '../logger.js';

/**
 * How a proxy exchange ended: `allowed` (it ran its course), `denied` (refused before any
 * connection: policy, bad request, a spent budget), `failed` (the upstream could not be reached),
 * `cut` (a limit or the run's end closed it while data flowed).
 */
export type EgressVerdict = 'allowed' | 'denied' | 'failed' | 'cut';

/** What the gateway reports (src/ops/metrics.ts fills it with Prometheus counters; egress never imports prom-client). */
export interface EgressMetrics {
  /** One proxy request ended with `verdict`. */
  request(verdict: EgressVerdict): void;
  /** Bytes forwarded to (`up`) or from (`down`) destinations. */
  bytes(direction: 'up' | 'down', bytes: number): void;
}

/** The one audit record of one request, written at info level when it ends. */
export interface EgressAuditRecord {
  audit: 'egress';
  /** Hashed thread key. */
  thread: string;
  user: string | undefined;
  /** `host:port` as the request named it, `-` when no request could be read. */
  destination: string;
  bytesUp: number;
  bytesDown: number;
  verdict: EgressVerdict;
  /** Why it was refused, failed or cut; `undefined` when allowed. */
  reason: string | undefined;
}

/** Writes the audit line (operational log and, with `onAudit`, the audit trail) and counts it; never throws (an observer's failure must not end a request badly). */
export function recordAudit(
  record: EgressAuditRecord,
  logger: Logger,
  metrics: EgressMetrics | undefined,
  onAudit?: (record: EgressAuditRecord) => void,
): void {
  try {
    logger.info(record, `egress ${record.verdict}: ${record.destination}`);
    onAudit?.(record);
    metrics?.request(record.verdict);
    if (record.bytesUp > 0) metrics?.bytes('up', record.bytesUp);
    if (record.bytesDown > 0) metrics?.bytes('down', record.bytesDown);
  } catch {
    // A broken log destination or observer is the operator's to see elsewhere; the request is over.
  }
}
