import type { Duplex } from 'node:stream';
import type { EgressDescription } from '../domain/execution.js';
import type { Logger } from '../logger.js';
import { recordAudit, type EgressAuditRecord, type EgressMetrics } from './egress-record.js';
import { BUDGET_MESSAGES, EgressBudget, type EgressLimits } from './run-limits.js';
import { ProxyExchange } from './proxy-exchange.js';
import type { EgressCredential } from './credentials.js';
import { systemLookup, type EgressLookup } from './destination.js';
import { forward } from './forward.js';
import { isHead, readHead, type RequestHead } from './head.js';
import { parseHost } from './host.js';
import { EgressPolicy, type EgressPattern } from './policy.js';
import type { UpstreamDeps } from './open-upstream.js';
import { tunnel } from './tunnel.js';

export { EgressBudget } from './run-limits.js';

/** Who a proxy exchange is for, for the audit line. */
export interface EgressContext {
  /** Hashed thread key. */
  thread: string;
  user?: string;
}

export interface EgressGatewayOptions extends EgressLimits {
  /** The parsed THREADLAB_EGRESS_ALLOW. */
  allow: readonly EgressPattern[];
  /** Headers added on the way out, per destination (THREADLAB_EGRESS_CREDENTIALS, values resolved). */
  credentials?: readonly EgressCredential[];
  /** Receives one `{ audit: 'egress', … }` line per request at info level. */
  logger: Logger;
  metrics?: EgressMetrics;
  /** Also receives each request's record, for the audit trail (THREADLAB_AUDIT_LOG). */
  onAudit?: (record: EgressAuditRecord) => void;
  /** The DNS port. @defaultValue node:dns lookup with all: true */
  lookup?: EgressLookup;
  /** Lookup, connect and TLS handshake of one upstream together. @defaultValue 10000 */
  connectTimeoutMs?: number;
  /** Time a request head may take to arrive. @defaultValue 10000 */
  headTimeoutMs?: number;
  /** Largest request head. @defaultValue 16384 */
  maxHeadBytes?: number;
  /** CAs trusted for credentialed (TLS) upstreams instead of the system's: tests only. */
  ca?: string | Buffer | Array<string | Buffer>;
}

/** Package indexes the system prompt can promise, with every host an install needs. */
const PACKAGE_INDEXES = [{ name: 'PyPI (pip install)', hosts: ['pypi.org', 'files.pythonhosted.org'] }];

/**
 * The bot-side egress gateway: an HTTP forward proxy for code in sandboxes, which reach it over a
 * relayed stream per connection. It decides every destination outside the sandbox (allowlist, one DNS
 * lookup, refused address classes), adds credentials the sandbox never holds, meters each run's
 * budget, and writes one audit line per request.
 */
export class EgressGateway {
  private readonly policy: EgressPolicy;
  private readonly deps: UpstreamDeps;

  constructor(private readonly options: EgressGatewayOptions) {
    this.policy = new EgressPolicy(options.allow);
    this.deps = {
      policy: this.policy,
      credentials: options.credentials ?? [],
      lookup: options.lookup ?? systemLookup,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    };
  }

  /** A fresh per-run budget (THREADLAB_EGRESS_MAX_CONNECTIONS, THREADLAB_EGRESS_MAX_MB) ending `timeoutMs` from now. */
  newBudget(timeoutMs: number): EgressBudget {
    return new EgressBudget(
      { maxConnections: this.options.maxConnections, maxBytes: this.options.maxBytes },
      timeoutMs,
    );
  }

  /** Serves one proxy exchange from a sandbox until it ends; never throws, never ends the process. */
  async handle(client: Duplex, context: EgressContext, budget: EgressBudget): Promise<void> {
    let exchange: ProxyExchange | undefined;
    try {
      exchange = new ProxyExchange(client, budget);
      const refused = budget.takeConnection();
      const head = await readHead(client, {
        maxBytes: this.options.maxHeadBytes ?? 16 * 1024,
        timeoutMs: this.options.headTimeoutMs ?? 10_000,
      });
      if (!isHead(head)) {
        if (head.status !== 0) exchange.refuse(head.status, head.reason);
        else {
          // Unless the run's end already closed it, in which case that is the reason.
          exchange.reason ??= head.reason;
          exchange.endClient();
        }
      } else if (refused) {
        exchange.destination = destinationOf(head);
        exchange.refuse(refused === 'connections' || refused === 'bytes' ? 429 : 403, BUDGET_MESSAGES[refused]);
      } else await this.route(exchange, head);
      await exchange.done();
    } catch (err) {
      this.options.logger.warn({ err, thread: context.thread }, 'egress gateway: an exchange failed');
      exchange?.cut('internal error');
      client.destroy();
    } finally {
      recordAudit(
        {
          audit: 'egress',
          thread: context.thread,
          user: context.user,
          destination: exchange?.destination ?? '-',
          bytesUp: exchange?.bytesUp ?? 0,
          bytesDown: exchange?.bytesDown ?? 0,
          verdict: exchange?.verdict ?? 'denied',
          reason: exchange?.reason,
        },
        this.options.logger,
        this.options.metrics,
        this.options.onAudit,
      );
    }
  }

  /** For the system prompt: which destinations are allowed and which package indexes installs can use. */
  describe(): EgressDescription {
    const reachable = (host: string) => this.policy.allows({ kind: 'name', name: host }, 443);
    return {
      allowed: this.policy.describe(),
      packageIndexes: PACKAGE_INDEXES.filter((index) => index.hosts.every(reachable)).map((index) => index.name),
      credentialed: (this.options.credentials ?? []).map((c) => (c.port ? `${c.host}:${c.port}` : c.host)),
    };
  }

  private async route(exchange: ProxyExchange, head: RequestHead): Promise<void> {
    if (head.method === 'CONNECT') return tunnel(exchange, head, this.deps);
    if (/^http:\/\//i.test(head.target)) return forward(exchange, head, this.deps);
    if (/^https:\/\//i.test(head.target))
      return exchange.refuse(400, 'https:// goes through CONNECT: use the proxy as HTTPS_PROXY');
    exchange.refuse(
      400,
      'this is a proxy: send CONNECT host:port, or a request for an absolute http:// URL (set HTTP_PROXY/HTTPS_PROXY)',
    );
  }
}

/** The destination a head names, for the audit line of a request refused before routing. */
function destinationOf(head: RequestHead): string {
  const authority = head.method === 'CONNECT' ? head.target : /^https?:\/\/([^/?#]*)/i.exec(head.target)?.[1];
  if (!authority) return '-';
  const host = authority.replace(/:[0-9]+$/, '').replace(/^\[|\]$/g, '');
  return parseHost(host) ? authority.toLowerCase().slice(0, 300) : '-';
}
