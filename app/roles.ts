/** The roles a `threadlab start` process can take, and why a configuration cannot run one. */
import type { Config } from '../src/config/index.js';

export type Role = 'all' | 'gateway' | 'worker';

/**
 * Why `role` cannot run with this configuration, or undefined. The web chat keeps its threads on this
 * machine's disk and streams each reply from the process that holds the browser's connection, so a
 * worker's replies could never reach it: it runs only in the single-process role.
 */
export function roleProblem(config: Config, role: Role): string | undefined {
  if (role === 'all' || !config.web.enabled) return undefined;
  const why =
    config.web.enabledSetting === 'auto'
      ? 'THREADLAB_WEB_ENABLED=auto turned it on because neither Slack nor Discord is configured'
      : 'THREADLAB_WEB_ENABLED=true';
  return (
    `The local web chat runs only with --role all (${why}): it keeps threads on this machine's disk and ` +
    `answers from the same process. Run it as one process (threadlab start), or set THREADLAB_WEB_ENABLED=false ` +
    `for --role ${role} and configure Slack or Discord.`
  );
}
