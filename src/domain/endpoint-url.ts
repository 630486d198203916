/**
 * Endpoint URLs that carry credentials (`https://user:pass@host/v1`, `…/v1?key=…`): split once into
 * what a client sends and what people may see. `fetch` refuses URLs with credentials, and anything
 * shown to chat users or written to logs must not contain them.
 */

/** Query parameters that are never secret and help when shown (Azure OpenAI's version). */
const PUBLIC_QUERY = new Set(['api-version']);

export interface EndpointUrl {
  /** The URL without user info or query, for the client's base URL. */
  base: string;
  /** Query parameters to send with every request (secrets included). */
  query: Record<string, string>;
  /** `Basic …` from the URL's user info, when it has one. */
  authorization: string | undefined;
  /** The URL with every credential replaced by `[REDACTED]`: safe for logs and chat. */
  display: string;
  /** The secret values it carries, for the logger to scrub wherever they appear. */
  secrets: string[];
}

/** Splits `raw` (an absolute URL) into its credential-free base, its query, its basic auth and a safe display form. */
export function parseEndpointUrl(raw: string): EndpointUrl {
  const url = new URL(raw);
  const secrets: string[] = [];
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const authorization =
    username || password ? `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` : undefined;
  if (password) secrets.push(password, url.password);
  // A user name alone is not secret ("default", "admin") and scrubbing it everywhere would garble logs.
  if (authorization) secrets.push(authorization.slice('Basic '.length));
  const query: Record<string, string> = {};
  const shown = new URLSearchParams();
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    const isPublic = PUBLIC_QUERY.has(name.toLowerCase());
    if (!isPublic && value) secrets.push(value, encodeURIComponent(value));
    shown.append(name, isPublic ? value : '[REDACTED]');
  }
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  const base = url.toString().replace(/\/$/, '');
  const search = shown.toString().replaceAll('%5BREDACTED%5D', '[REDACTED]');
  const userinfo = authorization ? '[REDACTED]@' : '';
  const display = `${url.protocol}//${userinfo}${url.host}${base.slice(url.origin.length)}${search ? `?${search}` : ''}`;
  return { base, query, authorization, display, secrets: [...new Set(secrets)] };
}

/** Credentials in URLs inside free text: `scheme://user:pass@` and secret-looking query values. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;
const SECRET_QUERY =
  /([?&](?:api[_-]?key|key|token|access[_-]?token|secret|password|pass|sig|signature|auth|code)=)[^&\s#"'<>]+/gi;

/** Replaces URL credentials anywhere in `text` with `[REDACTED]` (user info, and secret query values). */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, '$1[REDACTED]@').replace(SECRET_QUERY, '$1[REDACTED]');
}
