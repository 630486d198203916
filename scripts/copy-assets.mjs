// After `tsc`, copies what the compiled code reads from beside itself: the sandbox image definition
// (built and hashed at run time) and the web chat's page; and writes dist/bin/threadlab.js, an entry
// point that runs the compiled CLI only (bin/threadlab.js prefers the TypeScript in a checkout). The
// compiled daemon client finds it beside dist/cli, so a compiled command's daemon is compiled too.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';

for (const dir of ['sandbox/image', 'adapters/web/public']) {
  cpSync(dir, `dist/${dir}`, { recursive: true, filter: (src) => !src.includes('__pycache__') });
}
mkdirSync('dist/bin', { recursive: true });
writeFileSync('dist/bin/threadlab.js', "#!/usr/bin/env node\nimport '../cli/main.js';\n", { mode: 0o755 });
