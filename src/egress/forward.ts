import type { ProxyExchange } from './proxy-exchange.js';
import { findCredential } from './credentials.js';
import { headerValues, type RequestHead } from './head.js';
import { hostText, parseHost, parsePort, splitHostPort, type Host } from './host.js';
import { openUpstream, type UpstreamDeps } from './open-upstream.js';

/** Methods forwarded in absolute form; CONNECT has its own path and the rest have no use here. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Hop-by-hop and proxy headers: the gateway sets the framing and the connection itself. */
const DROPPED = new Set(['host', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'proxy-connection']);

type Target = { host: Host; explicitPort: number | undefined; path: string };

function parseTarget(target: string): Target | string {
  const match = /^http:\/\/([^/?#]*)(.*)$/i.exec(target);
  if (!match) return 'expected an absolute http:// URL';
  const authority = match[1]!;
  if (authority.includes('@')) return 'user names and passwords in the URL are not forwarded';
  const parts = splitHostPort(authority);
  const host = parts && parseHost(parts.host);
  const explicitPort = parts?.port === undefined ? undefined : parsePort(parts.port);
  if (!host || (parts?.port !== undefined && explicitPort === undefined)) return `"${authority}" is not a host[:port]`;
  const rest = match[2]!.split('#')[0]!;
  return { host, explicitPort, path: rest.startsWith('/') ? rest : `/${rest}` };
}

/** The body's length from Content-Length, 0 without one, or what is wrong with the framing. */
function bodyLength(head: RequestHead): number | { status: number; reason: string } {
  if (headerValues(head, 'transfer-encoding').length > 0)
    return { status: 411, reason: 'request bodies need a Content-Length (chunked uploads are not forwarded)' };
  const lengths = new Set(
    headerValues(head, 'content-length').flatMap((value) => value.split(',').map((v) => v.trim())),
  );
  if (lengths.size === 0) return 0;
  const [only] = [...lengths];
  if (lengths.size > 1 || !/^[0-9]{1,15}$/.test(only!)) return { status: 400, reason: 'an invalid Content-Length' };
  return Number(only);
}

/**
 * An absolute-form request (`GET http://host/path`): forwarded once, with `Connection: close`, its
 * `Proxy-*` and hop-by-hop headers removed. A destination with a credential is reached over TLS (port
 * 443 unless the URL names one) with the credential's header added here, so the code uses `http://`
 * and never holds the secret.
 */
export async function forward(exchange: ProxyExchange, head: RequestHead, deps: UpstreamDeps): Promise<void> {
  const target = parseTarget(head.target);
  if (typeof target === 'string') return exchange.refuse(400, target);
  const credential = findCredential(deps.credentials, target.host, target.explicitPort);
  const port = target.explicitPort ?? (credential ? 443 : 80);
  const label = `${hostText(target.host)}:${port}`;
  exchange.destination = label;
  if (!METHODS.has(head.method)) return exchange.refuse(405, `the method ${head.method} is not forwarded`);
  const length = bodyLength(head);
  if (typeof length !== 'number') return exchange.refuse(length.status, length.reason);

  const identity = target.host.kind === 'name' ? target.host.name : target.host.address.text;
  const upstream = await openUpstream(
    exchange,
    { host: target.host, port, label, ...(credential ? { tlsIdentity: identity } : {}) },
    deps,
  );
  if (!upstream) return;

  const named = new Set(
    headerValues(head, 'connection').flatMap((v) => v.split(',').map((n) => n.trim().toLowerCase())),
  );
  const credentialName = credential?.header.toLowerCase();
  const headers = head.headers.filter(([name]) => {
    const key = name.toLowerCase();
    return !DROPPED.has(key) && !key.startsWith('proxy-') && !named.has(key) && key !== credentialName;
  });
  const defaultPort = credential ? 443 : 80;
  headers.unshift(['Host', port === defaultPort ? hostText(target.host) : label]);
  if (credential) headers.push([credential.header, credential.value]);
  headers.push(['Connection', 'close']);
  const text = `${head.method} ${target.path} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;

  const { client } = exchange;
  const early = head.rest.subarray(0, length);
  if (!exchange.send(Buffer.from(text, 'latin1'), upstream, 'up')) return;
  if (!exchange.send(early, upstream, 'up')) return;
  // Only the declared body goes up: anything after it would be a second request the checks never saw.
  exchange.pump(client, upstream, 'up', { maxBytes: length - early.length, onEnd: () => undefined });
  exchange.pump(upstream, client, 'down', { onEnd: () => exchange.endClient() });
}
