import { parseIp, type IpAddress } from './address.js';

/** A destination host as a request names it: a DNS name, or an IP literal (which is never resolved). */
export type Host = { kind: 'name'; name: string } | { kind: 'ip'; address: IpAddress };

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * A DNS name in canonical form (lower case, no trailing dot), or `undefined` when `text` is not one.
 * An all-numeric last label is refused: resolvers read `2130706433` or `127.1` as IPv4 addresses.
 */
export function normalizeHostName(text: string): string | undefined {
  const name = text.toLowerCase().replace(/\.$/, '');
  if (name.length === 0 || name.length > 253) return undefined;
  const labels = name.split('.');
  if (!labels.every((label) => LABEL.test(label))) return undefined;
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return undefined;
  return name;
}

/** Reads a host as written in a request or a pattern (IPv6 without brackets); `undefined` when malformed. */
export function parseHost(text: string): Host | undefined {
  const address = parseIp(text);
  if (address) return { kind: 'ip', address };
  const name = normalizeHostName(text);
  return name === undefined ? undefined : { kind: 'name', name };
}

/** The host as people write it: a name, dotted IPv4, or bracketed IPv6. */
export function hostText(host: Host): string {
  if (host.kind === 'name') return host.name;
  return host.address.family === 6 ? `[${host.address.text}]` : host.address.text;
}

/**
 * Splits `host:port`, `[v6]:port`, `host`, `[v6]` and a bare IPv6 literal into host text and port text
 * (without checking either). `undefined` when brackets do not balance.
 */
export function splitHostPort(text: string): { host: string; port?: string } | undefined {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return undefined;
    const after = text.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return undefined;
    return after === '' ? { host: text.slice(1, close) } : { host: text.slice(1, close), port: after.slice(1) };
  }
  const colons = text.split(':').length - 1;
  if (colons === 1) {
    const [host = '', port = ''] = text.split(':');
    return { host, port };
  }
  return { host: text };
}

/** A TCP port from its decimal text, or `undefined`. */
export function parsePort(text: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}
