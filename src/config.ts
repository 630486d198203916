import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { parseEndpointUrl } from './domain/endpoint-url.js';
import { ThreadlabError } from './domain/errors.js';

/** The version of the sandbox image definition; bump when sandbox/image changes incompatibly. */
export const SANDBOX_IMAGE_REPO = 'threadlab-sandbox';

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ error: `expected an integer between ${min} and ${max}` })
    .int({ error: `expected an integer between ${min} and ${max}` })
    .min(min, { error: `expected an integer between ${min} and ${max}` })
    .max(max, { error: `expected an integer between ${min} and ${max}` });
const num = (min: number, max: number) =>
  z.coerce
    .number({ error: `expected a number between ${min} and ${max}` })
    .min(min, { error: `expected a number between ${min} and ${max}` })
    .max(max, { error: `expected a number between ${min} and ${max}` });
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'expected true or false' })
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));
const url = z.url({ protocol: /^https?$/, error: 'expected an absolute http(s) URL such as http://127.0.0.1:8080/v1' });
const prefixed = (prefix: string, what: string) =>
  z.string().regex(new RegExp(`^${prefix}[A-Za-z0-9-]{8,}$`), { error: `expected ${what} starting with "${prefix}"` });

/**
 * Every environment variable Threadlab reads, with its default. The README's configuration table is
 * this schema; keep them in step.
 */
export const envSchema = z.object({
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: url.optional(),
  OPENAI_MODEL: z.string().min(1).default('gpt-4.1-mini'),
  THREADLAB_LLM_MAX_ROUNDS: int(1, 100).default(12),
  THREADLAB_LLM_TOKEN_BUDGET: int(1000).default(300_000),
  THREADLAB_LLM_TURN_TIMEOUT_MS: int(1000).default(600_000),
  THREADLAB_LLM_REQUEST_TIMEOUT_MS: int(1000).default(120_000),
  THREADLAB_LLM_MAX_RETRIES: int(0, 10).default(3),
  THREADLAB_LLM_TEMPERATURE: num(0, 2).optional(),
  THREADLAB_LLM_IMAGES: bool.default(true),
  THREADLAB_LLM_STREAM: bool.default(true),
  THREADLAB_MEMORY_TOKENS: int(500).default(24_000),

  SLACK_BOT_TOKEN: prefixed('xoxb-', 'a bot token').optional(),
  SLACK_APP_TOKEN: prefixed('xapp-', 'an app-level token').optional(),
  SLACK_SIGNING_SECRET: z
    .string()
    .regex(/^[a-f0-9]{16,}$/i, { error: 'expected the hex signing secret of the app' })
    .optional(),
  SLACK_API_URL: url.optional(),
  THREADLAB_SLACK_MODE: z.enum(['socket', 'http']).default('socket'),
  THREADLAB_SLACK_PORT: int(1, 65535).default(3000),
  // Unset: all interfaces. HTTP mode exists to be reached by Slack, and bolt checks every request's signature.
  THREADLAB_SLACK_HOST: z.string().min(1).optional(),
  THREADLAB_SLACK_COMMAND: z
    .string()
    .regex(/^\/[a-z0-9_-]{1,31}$/, { error: 'expected a slash command such as /interpreter' })
    .default('/interpreter'),
  THREADLAB_SLACK_FOLLOW_THREADS: bool.default(true),

  DISCORD_TOKEN: z
    .string()
    .regex(/^[\w-]{20,}\.[\w-]{4,}\.[\w-]{20,}$/, { error: 'expected a bot token (three dot-separated parts)' })
    .optional(),
  DISCORD_APPLICATION_ID: z
    .string()
    .regex(/^\d{15,22}$/, { error: 'expected the numeric application id' })
    .optional(),
  DISCORD_API_URL: url.optional(),
  THREADLAB_DISCORD_MAX_UPLOAD_MB: num(1, 500).default(10),

  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, { error: 'expected redis://host:port or rediss://…' })
    .optional(),
  DOCKER_HOST: z
    .string()
    .regex(/^(unix|tcp|npipe|ssh|http|https):\/\//, { error: 'expected unix:///path, tcp://host:port or ssh://…' })
    .optional(),

  THREADLAB_DATA_DIR: z.string().min(1).default(join(homedir(), '.threadlab')),
  THREADLAB_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  THREADLAB_LOG_PRETTY: bool.default(false),
  THREADLAB_ROLE: z.enum(['all', 'gateway', 'worker']).default('all'),

  THREADLAB_WEB_ENABLED: z.enum(['auto', 'true', 'false']).default('auto'),
  THREADLAB_WEB_HOST: z.string().min(1).default('127.0.0.1'),
  THREADLAB_WEB_PORT: int(0, 65535).default(8787),
  THREADLAB_WEB_TOKEN: z.string().min(16, { error: 'expected at least 16 characters' }).optional(),
  THREADLAB_WEB_MAX_STREAMS: int(1, 100_000).default(1000),
  THREADLAB_WEB_MAX_CONNECTIONS: int(2, 200_000).default(1500),
  THREADLAB_PUBLIC_URL: url.optional(),

  THREADLAB_SANDBOX_IMAGE: z.string().min(1).optional(),
  THREADLAB_SANDBOX_BASE: z.enum(['auto', 'registry', 'debootstrap']).default('auto'),
  THREADLAB_SANDBOX_MEMORY_MB: int(64).default(1024),
  THREADLAB_SANDBOX_CPUS: num(0.1, 64).default(1),
  THREADLAB_SANDBOX_PIDS: int(16, 100_000).default(128),
  THREADLAB_SANDBOX_NOFILE: int(64, 1_048_576).default(512),
  THREADLAB_SANDBOX_FILE_SIZE_MB: int(1).default(256),
  THREADLAB_SANDBOX_DATA_MB: int(16).default(512),
  THREADLAB_SANDBOX_TMP_MB: int(8).default(256),
  THREADLAB_SANDBOX_TIMEOUT_MS: int(100).default(60_000),
  THREADLAB_SANDBOX_GRACE_MS: int(100).default(3000),
  THREADLAB_PREVIEW_TIMEOUT_MS: int(100, 600_000).default(10_000),
  THREADLAB_SANDBOX_OUTPUT_BYTES: int(1024).default(256 * 1024),
  THREADLAB_SANDBOX_IDLE_TTL_MS: int(1000).default(60 * 60_000),
  THREADLAB_SANDBOX_MAX_AGE_MS: int(1000).default(24 * 60 * 60_000),
  THREADLAB_SANDBOX_MAX_SESSIONS: int(1).default(32),
  THREADLAB_SANDBOX_POOL_SIZE: int(0, 64).default(2),
  THREADLAB_MAX_FILE_MB: int(1, 2048).default(100),
  THREADLAB_MAX_RUN_FILES_MB: int(1, 65_536).optional(),
  THREADLAB_FILES_TTL_MS: int(60_000).default(7 * 24 * 60 * 60_000),

  THREADLAB_REPLY_MAX_IMAGE_PX: int(256, 8192).default(2048),
  THREADLAB_REPLY_MAX_OUTPUT_LINES: int(5).default(60),

  THREADLAB_CONCURRENCY: int(1, 256).default(4),
  THREADLAB_USER_MAX_CONCURRENT: int(1).default(2),
  THREADLAB_USER_MAX_PER_MINUTE: int(1).default(20),
  THREADLAB_WORKSPACE_MAX_CONCURRENT: int(1).default(16),
  THREADLAB_WORKSPACE_MAX_PER_MINUTE: int(1).default(200),
  THREADLAB_QUEUE_MAX_LENGTH: int(1).default(1000),
  THREADLAB_METRICS_PORT: int(0, 65535).optional(),
  THREADLAB_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  THREADLAB_SHUTDOWN_TIMEOUT_MS: int(0).default(30_000),
});

export type Env = z.infer<typeof envSchema>;

/** Parsed configuration, grouped by concern. Built once by {@link loadConfig}. */
export interface Config {
  env: Env;
  llm: {
    apiKey: string | undefined;
    baseUrl: string | undefined;
    model: string;
    configured: boolean;
    maxRounds: number;
    tokenBudget: number;
    turnTimeoutMs: number;
    requestTimeoutMs: number;
    maxRetries: number;
    temperature: number | undefined;
    images: boolean;
    stream: boolean;
    memoryTokens: number;
  };
  sandbox: {
    image: string | undefined;
    base: Env['THREADLAB_SANDBOX_BASE'];
    memoryMb: number;
    cpus: number;
    pids: number;
    nofile: number;
    fileSizeMb: number;
    dataMb: number;
    tmpMb: number;
    timeoutMs: number;
    graceMs: number;
    /** Time budget of one request for file previews (THREADLAB_PREVIEW_TIMEOUT_MS). */
    previewTimeoutMs: number;
    outputBytes: number;
    idleTtlMs: number;
    maxAgeMs: number;
    maxSessions: number;
    poolSize: number;
    maxFileBytes: number;
    /** Bytes of changed files one run may bring back (the larger of a file's size and its allocated blocks). */
    maxRunFilesBytes: number;
    filesTtlMs: number;
  };
  slack: { enabled: boolean };
  discord: { enabled: boolean };
  web: { enabled: boolean; host: string; port: number; token: string | undefined };
  dataDir: string;
  /** Every secret value, for the logger to scrub from any string. */
  secrets: string[];
}

/** Formats zod issues as `VARIABLE: what is expected (got "value")`, one per line. */
function describeIssues(error: z.ZodError, source: Record<string, string | undefined>): string {
  return error.issues
    .map((issue) => {
      const name = String(issue.path[0] ?? '?');
      const raw = source[name];
      const secret = /TOKEN|KEY|SECRET/.test(name);
      const got = raw === undefined ? '' : secret ? ' (value hidden)' : ` (got ${JSON.stringify(raw)})`;
      return `${name}: ${issue.message}${got}`;
    })
    .join('\n');
}

/** Parses the environment once. Empty strings count as unset. Throws `config_invalid` naming each bad variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const cleaned: Record<string, string | undefined> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = source[key];
    if (value !== undefined && value.trim() !== '') cleaned[key] = value.trim();
  }
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ThreadlabError('config_invalid', `Invalid configuration:\n${describeIssues(parsed.error, cleaned)}`, {
      isPolicy: true,
    });
  }
  const env = parsed.data;
  const problems: string[] = [];
  const slackAny = Boolean(env.SLACK_BOT_TOKEN || env.SLACK_APP_TOKEN || env.SLACK_SIGNING_SECRET);
  if (slackAny) {
    if (!env.SLACK_BOT_TOKEN) problems.push('SLACK_BOT_TOKEN: required when Slack is configured (xoxb-…)');
    if (env.THREADLAB_SLACK_MODE === 'socket' && !env.SLACK_APP_TOKEN)
      problems.push('SLACK_APP_TOKEN: required in Socket Mode (xapp-…); or set THREADLAB_SLACK_MODE=http');
    if (env.THREADLAB_SLACK_MODE === 'http' && !env.SLACK_SIGNING_SECRET)
      problems.push('SLACK_SIGNING_SECRET: required in HTTP mode to verify requests');
  }
  if (env.DISCORD_TOKEN && !env.DISCORD_APPLICATION_ID)
    problems.push('DISCORD_APPLICATION_ID: required with DISCORD_TOKEN');
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(env.THREADLAB_WEB_HOST);
  if (!loopback && !env.THREADLAB_WEB_TOKEN)
    problems.push(`THREADLAB_WEB_TOKEN: required when THREADLAB_WEB_HOST is not loopback (${env.THREADLAB_WEB_HOST})`);
  if (problems.length > 0) {
    throw new ThreadlabError('config_invalid', `Invalid configuration:\n${problems.join('\n')}`, { isPolicy: true });
  }

  const slack = slackAny;
  const discord = Boolean(env.DISCORD_TOKEN);
  const web = env.THREADLAB_WEB_ENABLED === 'true' || (env.THREADLAB_WEB_ENABLED === 'auto' && !slack && !discord);
  return {
    env,
    llm: {
      apiKey: env.OPENAI_API_KEY,
      baseUrl: env.OPENAI_BASE_URL,
      model: env.OPENAI_MODEL,
      configured: Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL),
      maxRounds: env.THREADLAB_LLM_MAX_ROUNDS,
      tokenBudget: env.THREADLAB_LLM_TOKEN_BUDGET,
      turnTimeoutMs: env.THREADLAB_LLM_TURN_TIMEOUT_MS,
      requestTimeoutMs: env.THREADLAB_LLM_REQUEST_TIMEOUT_MS,
      maxRetries: env.THREADLAB_LLM_MAX_RETRIES,
      temperature: env.THREADLAB_LLM_TEMPERATURE,
      images: env.THREADLAB_LLM_IMAGES,
      stream: env.THREADLAB_LLM_STREAM,
      memoryTokens: env.THREADLAB_MEMORY_TOKENS,
    },
    sandbox: {
      image: env.THREADLAB_SANDBOX_IMAGE,
      base: env.THREADLAB_SANDBOX_BASE,
      memoryMb: env.THREADLAB_SANDBOX_MEMORY_MB,
      cpus: env.THREADLAB_SANDBOX_CPUS,
      pids: env.THREADLAB_SANDBOX_PIDS,
      nofile: env.THREADLAB_SANDBOX_NOFILE,
      fileSizeMb: env.THREADLAB_SANDBOX_FILE_SIZE_MB,
      dataMb: env.THREADLAB_SANDBOX_DATA_MB,
      tmpMb: env.THREADLAB_SANDBOX_TMP_MB,
      timeoutMs: env.THREADLAB_SANDBOX_TIMEOUT_MS,
      graceMs: env.THREADLAB_SANDBOX_GRACE_MS,
      previewTimeoutMs: env.THREADLAB_PREVIEW_TIMEOUT_MS,
      outputBytes: env.THREADLAB_SANDBOX_OUTPUT_BYTES,
      idleTtlMs: env.THREADLAB_SANDBOX_IDLE_TTL_MS,
      maxAgeMs: env.THREADLAB_SANDBOX_MAX_AGE_MS,
      maxSessions: env.THREADLAB_SANDBOX_MAX_SESSIONS,
      poolSize: env.THREADLAB_SANDBOX_POOL_SIZE,
      maxFileBytes: env.THREADLAB_MAX_FILE_MB * 1024 * 1024,
      maxRunFilesBytes: (env.THREADLAB_MAX_RUN_FILES_MB ?? 2 * env.THREADLAB_MAX_FILE_MB) * 1024 * 1024,
      filesTtlMs: env.THREADLAB_FILES_TTL_MS,
    },
    slack: { enabled: slack },
    discord: { enabled: discord },
    web: { enabled: web, host: env.THREADLAB_WEB_HOST, port: env.THREADLAB_WEB_PORT, token: env.THREADLAB_WEB_TOKEN },
    dataDir: env.THREADLAB_DATA_DIR,
    secrets: [
      env.OPENAI_API_KEY,
      env.SLACK_BOT_TOKEN,
      env.SLACK_APP_TOKEN,
      env.SLACK_SIGNING_SECRET,
      env.DISCORD_TOKEN,
      env.THREADLAB_WEB_TOKEN,
      ...(env.OPENAI_BASE_URL ? parseEndpointUrl(env.OPENAI_BASE_URL).secrets : []),
      ...(env.REDIS_URL ? parseEndpointUrl(env.REDIS_URL.replace(/^rediss?:/, 'http:')).secrets : []),
    ].filter((s): s is string => typeof s === 'string' && s.length >= 6),
  };
}
