const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

/**
 * Whether `host` (a name or address as written in a setting or a Host header, without a port) names this
 * machine's loopback: `localhost`, `::1` (bracketed or not) or any address of 127.0.0.0/8. The one rule for
 * every place that lets loopback in without a token.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
