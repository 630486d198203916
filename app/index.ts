/**
 * The composition root, the one place above src/ that knows every implementation: the CLI and the tests ask it
 * for a bot, a sandbox, a model client, adapters, and what purge and retention work on.
 */
export { buildBot, buildDaemonBot, type BuildOptions } from './bot.js';
export { createAdapters, createRenderer } from './adapters.js';
// createSlackAdapter and createDiscordAdapter are in ./slack.js and ./discord.js, not here: what imports this module
// (every CLI command) does not load discord.js and Bolt for them.
export { createBudgets, type GovernanceStores } from './governance.js';
export { createLlmClient } from './llm.js';
export { createPurgeSources, createRetentionSweeper, type PurgeSources } from './retention.js';
export { roleProblem, type Role } from './roles.js';
export { createSandbox } from './sandbox.js';
export { sharedState, type StateBacking } from './state.js';
