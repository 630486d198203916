import { hostText, parseHost, parsePort, splitHostPort, type Host } from './host.js';

/** A credential as configured: which header to add for which destination, and which variable holds it. */
export interface CredentialSpec {
  /** Destination host as `hostText` prints it (a name, dotted IPv4 or bracketed IPv6). */
  host: string;
  /** Only this port; unset: any port the request names (443 when it names none). */
  port?: number;
  header: string;
  /** Name of the bot's environment variable holding the header's value. */
  variable: string;
}

/** A header the gateway adds on the way out to one destination; the sandbox never sees `value`. */
export interface EgressCredential extends Omit<CredentialSpec, 'variable'> {
  value: string;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Headers that frame or route the request: the gateway owns them. */
const RESERVED = /^(host|connection|content-length|transfer-encoding|te|upgrade|keep-alive|trailer|proxy-.*)$/i;

function parseEntry(entry: string): CredentialSpec {
  const equals = entry.indexOf('=');
  const colon = entry.indexOf(':', equals);
  if (equals <= 0 || colon < 0)
    throw new Error(
      `"${entry}" should read host=Header-Name:VARIABLE (e.g. api.example.com=Authorization:EXAMPLE_API_TOKEN)`,
    );
  const parts = splitHostPort(entry.slice(0, equals).trim());
  const host = parts && parseHost(parts.host);
  const port = parts?.port === undefined ? undefined : parsePort(parts.port);
  if (!host || (parts?.port !== undefined && port === undefined))
    throw new Error(`"${entry}" does not start with a host name or IP address (optionally :port)`);
  const header = entry.slice(equals + 1, colon).trim();
  const variable = entry.slice(colon + 1).trim();
  if (!TOKEN.test(header) || RESERVED.test(header))
    throw new Error(`"${header}" in "${entry}" is not a header the gateway can add`);
  if (!VARIABLE.test(variable)) throw new Error(`"${variable}" in "${entry}" is not an environment variable name`);
  return { host: hostText(host), ...(port === undefined ? {} : { port }), header, variable };
}

/** Parses `host[:port]=Header:VARIABLE` entries separated by `;`. Throws an Error naming the bad entry. */
export function parseCredentialSpecs(text: string): CredentialSpec[] {
  const specs = text
    .split(';')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map(parseEntry);
  const seen = new Set<string>();
  for (const spec of specs) {
    const key = `${spec.host}:${spec.port ?? '*'}`;
    if (seen.has(key)) throw new Error(`${spec.host} is listed twice`);
    seen.add(key);
  }
  return specs;
}

/** Whether a header value can be sent as it is (no line breaks or control characters). */
export function isHeaderValue(value: string): boolean {
  return value.length > 0 && /^[\t\x20-\x7e\x80-\xff]+$/.test(value);
}

/**
 * The credential for a request to `host`, naming `port` or none. A credential without a port matches
 * any; one with a port matches only requests naming that port, or none when it is 443.
 */
export function findCredential(
  credentials: readonly EgressCredential[],
  host: Host,
  port: number | undefined,
): EgressCredential | undefined {
  const text = hostText(host);
  const wanted = port ?? 443;
  return (
    credentials.find((c) => c.host === text && c.port === wanted) ??
    credentials.find((c) => c.host === text && c.port === undefined)
  );
}
