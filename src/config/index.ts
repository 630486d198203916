/** The configuration: read once from the environment by loadConfig, then passed down as plain data. */
export { loadConfig, type Config } from './load-config.js';
export { envSchema, SANDBOX_IMAGE_REPO } from './sections.js';
