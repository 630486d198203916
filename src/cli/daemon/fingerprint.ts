import { createHash } from 'node:crypto';
import type { Config } from '../../config.js';

/**
 * A fingerprint of the effective configuration (every parsed variable, defaults included): equal
 * for equal configurations, different when an endpoint, key or limit changed. A SHA-256 over the
 * values; the values themselves are never sent or logged.
 */
export function configFingerprint(config: Config): string {
  const env = config.env as Record<string, unknown>;
  const canonical = Object.keys(env)
    .sort()
    .filter((key) => env[key] !== undefined)
    .map((key) => [key, env[key]]);
  return createHash('sha256').update('threadlab-config-v1\n').update(JSON.stringify(canonical)).digest('hex');
}
