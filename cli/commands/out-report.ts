import type { RefusedWrite } from '../daemon/write-out.js';

/** One stderr line per file not written under --out (empty when none). */
export function describeRefused(out: { refused: RefusedWrite[] }): string {
  return out.refused.map((r) => `Not written under --out: ${JSON.stringify(r.name)}: ${r.reason}\n`).join('');
}
