import { fileURLToPath } from 'node:url';

/** bin/threadlab.js, as a user runs it in a checkout (the TypeScript, through tsx). */
export const sourceThreadlabBin = fileURLToPath(new URL('../../bin/threadlab.js', import.meta.url));

/** Which entry point a spawned CLI runs: the compiled one (fast to start), or the source one. */
export type ThreadlabEntry = 'compiled' | 'source';

/**
 * The script a test spawns with `node` to run the CLI. `compiled` is dist/bin/threadlab.js, which the
 * global set-up builds from the current sources in every run (and names in THREADLAB_TEST_CLI_BIN), so
 * a test never runs a stale build; outside that set-up it fails rather than guess.
 */
export function threadlabBin(entry: ThreadlabEntry = 'compiled'): string {
  if (entry === 'source') return sourceThreadlabBin;
  const compiled = process.env.THREADLAB_TEST_CLI_BIN;
  if (!compiled)
    throw new Error('THREADLAB_TEST_CLI_BIN is unset: run this file through an integration or e2e vitest project');
  return compiled;
}
