/**
 * Parses a request target (`IncomingMessage.url`) without ever throwing: undefined when it is not a
 * path. `new URL(target, base)` alone reads `//host…` as a network path and throws on `//%zz` or `//[`,
 * so the target is appended to a fixed origin instead and must start with `/`.
 */
export function parseRequestUrl(target: string | undefined): URL | undefined {
  if (target === undefined || !target.startsWith('/')) return undefined;
  try {
    return new URL(`http://local${target}`);
  } catch {
    return undefined;
  }
}
