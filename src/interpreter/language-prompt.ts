import type { SandboxEnvironment } from '../domain/execution.js';

/** Most R packages named in the prompt. */
const MAX_R_PACKAGES = 30;

/**
 * The system prompt's lines for R and JavaScript, each only where the image has it (its ready frame says so),
 * with the versions read from the image. Their sessions start on first use and are not saved when the
 * sandbox is recycled (only Python's variables are), which the model is told.
 */
export function describeLanguages(env: Pick<SandboxEnvironment, 'languages'>): string[] {
  const lines: string[] = [];
  const r = env.languages?.r;
  if (r) {
    const names = Object.keys(r.packages).sort((a, b) => a.localeCompare(b));
    const listed = names.slice(0, MAX_R_PACKAGES).map((n) => `${n} ${r.packages[n]}`);
    if (names.length > MAX_R_PACKAGES) listed.push(`and ${names.length - MAX_R_PACKAGES} more`);
    lines.push(
      `- R ${r.version} (language "r") with: ${listed.length > 0 ? listed.join(', ') : 'base packages only'}. ` +
        'Its variables and loaded libraries persist between runs (not when the sandbox is recycled); the value of ' +
        "the last visible expression is printed; ggplot charts and base plot() pages are shown as images (don't ggsave unless a file is asked for).",
    );
  }
  const js = env.languages?.javascript;
  if (js) {
    lines.push(
      `- JavaScript: Node.js ${js.version} (language "javascript"), Node's standard library only (require('node:fs') etc.). ` +
        'Top-level bindings persist between runs (not when the sandbox is recycled), top-level await works, and the ' +
        "last expression's value is shown; a second `const x` of the same name is an error, so assign instead.",
    );
  }
  if (lines.length > 0) lines.push('- All languages share /mnt/data: a file written in one is read in another.');
  return lines;
}
