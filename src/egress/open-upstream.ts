import type { Socket } from 'node:net';
import { connectUpstream, isUpstreamFailure } from './connect.js';
import type { ProxyExchange } from './proxy-exchange.js';
import type { EgressCredential } from './credentials.js';
import { checkDestination, type EgressLookup } from './destination.js';
import type { Host } from './host.js';
import type { EgressPolicy } from './policy.js';

/** What an exchange needs from the gateway to reach a destination. */
export interface UpstreamDeps {
  policy: EgressPolicy;
  credentials: readonly EgressCredential[];
  lookup: EgressLookup;
  /** Lookup, connect and TLS handshake together. */
  connectTimeoutMs: number;
  /** Trusted CAs for credentialed (TLS) upstreams instead of the system's: tests only. */
  ca?: string | Buffer | Array<string | Buffer>;
}

/**
 * Checks the destination, resolves it once and connects to a checked address (with TLS when `tls`),
 * within the connect timeout. On refusal or failure the client has been answered and the result is
 * `undefined`; on success the socket belongs to the exchange.
 */
export async function openUpstream(
  exchange: ProxyExchange,
  target: { host: Host; port: number; label: string; tlsIdentity?: string },
  deps: UpstreamDeps,
): Promise<Socket | undefined> {
  const signal = AbortSignal.any([exchange.controller.signal, AbortSignal.timeout(deps.connectTimeoutMs)]);
  const verdict = await checkDestination({
    ...target,
    policy: deps.policy,
    lookup: deps.lookup,
    signal,
    timeoutMs: deps.connectTimeoutMs,
  });
  if (exchange.controller.signal.aborted) return undefined;
  if (!verdict.ok) {
    exchange.refuse(verdict.status, verdict.reason, verdict.status === 403 ? 'denied' : 'failed');
    return undefined;
  }
  const tls = target.tlsIdentity === undefined ? undefined : { identity: target.tlsIdentity, ca: deps.ca };
  const upstream = await connectUpstream(
    { addresses: verdict.addresses, port: target.port, label: target.label, ...(tls ? { tls } : {}) },
    signal,
    deps.connectTimeoutMs,
  );
  if (isUpstreamFailure(upstream)) {
    if (!exchange.controller.signal.aborted) exchange.refuse(upstream.status, upstream.reason, 'failed');
    return undefined;
  }
  if (exchange.controller.signal.aborted) {
    upstream.destroy();
    return undefined;
  }
  exchange.attach(upstream);
  exchange.verdict = 'allowed';
  return upstream;
}
