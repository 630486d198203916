// After `tsc`, copies what the compiled code reads from beside itself: the sandbox image definition
// (built and hashed at run time) and the web chat's page.
import { cpSync } from 'node:fs';

for (const dir of ['sandbox/image', 'adapters/web/public']) {
  cpSync(dir, `dist/${dir}`, { recursive: true, filter: (src) => !src.includes('__pycache__') });
}
