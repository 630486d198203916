import type { Conversation } from './conversation.js';
import type { RequestHead } from './head.js';
import { hostText, parseHost, parsePort, splitHostPort } from './host.js';
import { openUpstream, type UpstreamDeps } from './open-upstream.js';

const ESTABLISHED = Buffer.from('HTTP/1.1 200 Connection established\r\n\r\n');

/**
 * `CONNECT host:port`: after the checks, a byte tunnel (HTTPS and pip's TLS run end to end inside it;
 * the gateway adds nothing and sees nothing), metered both ways against the run's budget.
 */
export async function tunnel(conversation: Conversation, head: RequestHead, deps: UpstreamDeps): Promise<void> {
  const parts = splitHostPort(head.target);
  const host = parts && parseHost(parts.host);
  const port = parts?.port === undefined ? undefined : parsePort(parts.port);
  if (!host || port === undefined) {
    conversation.refuse(400, 'CONNECT needs host:port (IPv6 as [2001:db8::1]:443)');
    return;
  }
  conversation.destination = `${hostText(host)}:${port}`;
  const upstream = await openUpstream(conversation, { host, port, label: conversation.destination }, deps);
  if (!upstream) return;
  const { client } = conversation;
  client.write(ESTABLISHED);
  if (!conversation.send(head.rest, upstream, 'up')) return;
  conversation.pump(client, upstream, 'up', { onEnd: () => upstream.end() });
  conversation.pump(upstream, client, 'down', { onEnd: () => conversation.endClient() });
}
