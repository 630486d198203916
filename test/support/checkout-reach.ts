import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Whether another user (uid 65534) can reach this checkout to load the CLI: every ancestor has the search bit
 * for others. A CI clone in `mktemp -d` (mode 0700) does not; daemon-socket.test.ts grants the bit while it runs.
 */
export function checkoutReachableByOthers(): boolean {
  let dir = fileURLToPath(new URL('../..', import.meta.url));
  for (;;) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    const parent = dirname(dir);
    if (parent === dir) return true;
    dir = parent;
  }
}
