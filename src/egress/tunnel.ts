import type { ProxyExchange } from './proxy-exchange.js';
import type { RequestHead } from './head.js';
import { hostText, parseHost, parsePort, splitHostPort } from './host.js';
import { openUpstream, type UpstreamDeps } from './open-upstream.js';

const ESTABLISHED = Buffer.from('HTTP/1.1 200 Connection established\r\n\r\n');

/**
 * `CONNECT host:port`: after the checks, a byte tunnel (HTTPS and pip's TLS run end to end inside it;
 * the gateway adds nothing and sees nothing), metered both ways against the run's budget.
 */
export async function tunnel(exchange: ProxyExchange, head: RequestHead, deps: UpstreamDeps): Promise<void> {
  const parts = splitHostPort(head.target);
  const host = parts && parseHost(parts.host);
  const port = parts?.port === undefined ? undefined : parsePort(parts.port);
  if (!host || port === undefined) {
    exchange.refuse(400, 'CONNECT needs host:port (IPv6 as [2001:db8::1]:443)');
    return;
  }
  exchange.destination = `${hostText(host)}:${port}`;
  const upstream = await openUpstream(exchange, { host, port, label: exchange.destination }, deps);
  if (!upstream) return;
  const { client } = exchange;
  client.write(ESTABLISHED);
  if (!exchange.send(head.rest, upstream, 'up')) return;
  exchange.pump(client, upstream, 'up', { onEnd: () => upstream.end() });
  exchange.pump(upstream, client, 'down', { onEnd: () => exchange.endClient() });
}
