import { createHash } from 'node:crypto';
import type { Config } from '../../src/config/index.js';

/** JSON with object keys sorted at every level, so equal configurations serialise equally. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => [key, canonical((value as Record<string, unknown>)[key])]);
}

/**
 * A fingerprint of the effective configuration (every parsed setting, defaults included): equal
 * for equal configurations, different when an endpoint, key or limit changed. A SHA-256 over the
 * values; the values themselves are never sent or logged.
 */
export function configFingerprint(config: Config): string {
  return createHash('sha256')
    .update('threadlab-config-v2\n')
    .update(JSON.stringify(canonical(config)))
    .digest('hex');
}
