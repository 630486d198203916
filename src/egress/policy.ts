import { cidrContains, parseCidr, type Cidr, type IpAddress } from './address.js';
import { normalizeHostName, parsePort, splitHostPort, type Host } from './host.js';

/** Ports a pattern allows: a list, or any port (`host:*`). */
export type PortSet = 'any' | readonly number[];

/**
 * One entry of THREADLAB_EGRESS_ALLOW: an exact host, every subdomain of a domain (`*.example.org`, not
 * `example.org` itself), any destination (`*`), or an IP address or CIDR block (v4 or v6).
 */
export type EgressPattern =
  | { kind: 'host'; host: string; ports: PortSet; text: string }
  | { kind: 'suffix'; suffix: string; ports: PortSet; text: string }
  | { kind: 'any'; ports: PortSet; text: string }
  | { kind: 'cidr'; block: Cidr; ports: PortSet; text: string };

/** The ports of a pattern written without one. */
export const DEFAULT_PORTS: readonly number[] = [80, 443];

function patternPorts(item: string, portText: string | undefined): PortSet {
  if (portText === undefined) return DEFAULT_PORTS;
  if (portText === '*') return 'any';
  const port = parsePort(portText);
  if (port === undefined) throw new Error(`"${item}": the port must be 1-65535 or *`);
  return [port];
}

function parsePattern(item: string): EgressPattern {
  const parts = splitHostPort(item);
  if (!parts) throw new Error(`"${item}": unbalanced brackets; write IPv6 as [2001:db8::1]:443`);
  const ports = patternPorts(item, parts.port);
  const text = item;
  if (parts.host === '*') return { kind: 'any', ports, text };
  if (parts.host.startsWith('*.')) {
    const suffix = normalizeHostName(parts.host.slice(2));
    if (suffix === undefined) throw new Error(`"${item}": not a domain after "*."`);
    return { kind: 'suffix', suffix: `.${suffix}`, ports, text };
  }
  const block = parseCidr(parts.host);
  if (block) return { kind: 'cidr', block, ports, text };
  const host = normalizeHostName(parts.host);
  if (host === undefined)
    throw new Error(`"${item}": expected a host name, *.domain, an IP address or a CIDR block (with :port or :*)`);
  return { kind: 'host', host, ports, text };
}

/**
 * Parses the comma-separated allowlist. Throws an Error naming the first bad entry; an empty list is
 * an error too (the caller treats an unset variable as egress off before calling this).
 */
export function parseAllowlist(text: string): EgressPattern[] {
  const items = text
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');
  if (items.length === 0) throw new Error('lists no destination');
  return items.map(parsePattern);
}

function portAllowed(ports: PortSet, port: number): boolean {
  return ports === 'any' || ports.includes(port);
}

/** Which destinations the operator allowed; checks names and IP literals, and lifts address refusals. */
export class EgressPolicy {
  constructor(private readonly patterns: readonly EgressPattern[]) {}

  /** Whether a request may name `host` on `port` (before any address is known). */
  allows(host: Host, port: number): boolean {
    return this.patterns.some((pattern) => {
      if (!portAllowed(pattern.ports, port)) return false;
      if (pattern.kind === 'any') return true;
      if (host.kind === 'ip') return pattern.kind === 'cidr' && cidrContains(pattern.block, host.address);
      if (pattern.kind === 'host') return pattern.host === host.name;
      if (pattern.kind === 'suffix') return host.name.endsWith(pattern.suffix);
      return false;
    });
  }

  /**
   * Whether an IP or CIDR entry covers `address` on `port`: only such an entry lets the gateway connect
   * to a loopback, link-local or private address; `*` and names never do.
   */
  lists(address: IpAddress, port: number): boolean {
    return this.patterns.some(
      (pattern) => pattern.kind === 'cidr' && portAllowed(pattern.ports, port) && cidrContains(pattern.block, address),
    );
  }

  /** The entries as the operator wrote them (lower-cased), for the system prompt and the logs. */
  describe(): string[] {
    return this.patterns.map((pattern) => pattern.text);
  }
}
