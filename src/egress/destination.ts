import { lookup as dnsLookup } from 'node:dns/promises';
import { classifyAddress, parseIp, type AddressClass, type IpAddress } from './address.js';
import type { Host } from './host.js';
import type { EgressPolicy } from './policy.js';

/** Resolves a name to all its addresses (the DNS port of the gateway). */
export type EgressLookup = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address in the resolver's order. */
export const systemLookup: EgressLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A destination the gateway may connect to, or why not. */
export type DestinationVerdict =
  { ok: true; addresses: IpAddress[] } | { ok: false; status: 403 | 502 | 504; reason: string };

const SETTING = 'THREADLAB_EGRESS_ALLOW';

const ARTICLE: Record<AddressClass, string> = {
  loopback: 'a loopback address',
  'link-local': 'a link-local address',
  private: 'a private address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

function refusedAddress(label: string, address: IpAddress, kind: AddressClass, resolved: boolean): string {
  const what = `${ARTICLE[kind]} (${address.text}${address.text === '169.254.169.254' ? ', cloud metadata' : ''})`;
  return `${label} ${resolved ? 'resolves to' : 'is'} ${what}; only an IP or CIDR entry in ${SETTING} allows that`;
}

/**
 * Checks a destination outside the sandbox: the name (or IP literal) against the allowlist, then every
 * address the name resolves to (one lookup, whose answer is the one connected to) against the refused
 * address classes. Any refused address refuses the destination, so a rebinding answer that mixes a
 * public and a private address gets nowhere. Never throws; `signal` bounds the lookup.
 */
export async function checkDestination(options: {
  host: Host;
  port: number;
  /** The destination as the request named it, for messages. */
  label: string;
  policy: EgressPolicy;
  lookup: EgressLookup;
  signal: AbortSignal;
  timeoutMs: number;
}): Promise<DestinationVerdict> {
  const { host, port, label, policy } = options;
  if (!policy.allows(host, port)) return { ok: false, status: 403, reason: `${label} is not in ${SETTING}` };
  let addresses: IpAddress[];
  if (host.kind === 'ip') addresses = [host.address];
  else {
    const answer = await lookupWithin(options.lookup, host.name, options.signal);
    if ('status' in answer)
      return answer.status === 504
        ? { ok: false, status: 504, reason: `${label} did not resolve within ${options.timeoutMs} ms` }
        : { ok: false, status: 502, reason: `${label} does not resolve${answer.code ? ` (${answer.code})` : ''}` };
    addresses = answer.flatMap((entry) => parseIp(entry.address) ?? []);
    if (addresses.length === 0) return { ok: false, status: 502, reason: `${label} has no address` };
  }
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind && !policy.lists(address, port))
      return { ok: false, status: 403, reason: refusedAddress(label, address, kind, host.kind === 'name') };
  }
  return { ok: true, addresses };
}

async function lookupWithin(
  lookup: EgressLookup,
  name: string,
  signal: AbortSignal,
): Promise<ReadonlyArray<{ address: string }> | { status: 502 | 504; code?: string }> {
  if (signal.aborted) return { status: 504 };
  let onAbort = () => undefined as void;
  const aborted = new Promise<{ status: 504 }>((resolve) => {
    onAbort = () => resolve({ status: 504 });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      lookup(name).catch((err: unknown) => ({ status: 502 as const, code: (err as { code?: string }).code })),
      aborted,
    ]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
