import { isHeaderValue, type CredentialSpec, type EgressCredential } from './credentials.js';
import { parseHost } from './host.js';
import { EgressPolicy, type EgressPattern } from './policy.js';

/** The `egress` section of the configuration; absent when THREADLAB_EGRESS_ALLOW is unset (egress off). */
export interface EgressSettings {
  /** THREADLAB_EGRESS_ALLOW, parsed. */
  allow: EgressPattern[];
  /** THREADLAB_EGRESS_CREDENTIALS with each value read from the variable it names. */
  credentials: EgressCredential[];
  /** THREADLAB_EGRESS_MAX_CONNECTIONS. */
  maxConnections: number;
  /** THREADLAB_EGRESS_MAX_MB, in bytes. */
  maxBytes: number;
}

/**
 * Builds the egress settings from the parsed variables, reading each credential's value through
 * `variable` (the configuration's reader of the environment). Problems name the variable to fix.
 */
export function resolveEgressSettings(
  parsed: { allow?: EgressPattern[]; credentials?: CredentialSpec[]; maxConnections: number; maxBytes: number },
  variable: (name: string) => string | undefined,
): { settings: EgressSettings | undefined; problems: string[] } {
  const specs = parsed.credentials ?? [];
  if (!parsed.allow) {
    const problems =
      specs.length > 0
        ? ['THREADLAB_EGRESS_CREDENTIALS: needs THREADLAB_EGRESS_ALLOW (without it the sandbox has no network)']
        : [];
    return { settings: undefined, problems };
  }
  const policy = new EgressPolicy(parsed.allow);
  const problems: string[] = [];
  const credentials: EgressCredential[] = [];
  for (const spec of specs) {
    const where = `THREADLAB_EGRESS_CREDENTIALS: ${spec.host}${spec.port ? `:${spec.port}` : ''}`;
    const value = variable(spec.variable)?.trim();
    if (!value) problems.push(`${where} takes its ${spec.header} header from ${spec.variable}, which is not set`);
    else if (!isHeaderValue(value)) problems.push(`${where}: ${spec.variable} holds a line break or control character`);
    else credentials.push({ host: spec.host, ...(spec.port ? { port: spec.port } : {}), header: spec.header, value });
    const host = parseHost(spec.host.replace(/^\[|\]$/g, ''));
    const port = spec.port ?? 443;
    if (host && !policy.allows(host, port))
      problems.push(`${where}: ${spec.host}:${port} is not allowed by THREADLAB_EGRESS_ALLOW; add it there too`);
  }
  const { allow, maxConnections, maxBytes } = parsed;
  return { settings: { allow, credentials, maxConnections, maxBytes }, problems };
}
