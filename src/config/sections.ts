/**
 * The configuration's sections: each lists its environment variables once, next to the field each one fills
 * (docs/configuration.md's table is the union of these; a unit test keeps them in step). Read by load-config.ts.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { parseCredentialSpecs } from '../egress/credentials.js';
import { parseAllowlist } from '../egress/policy.js';
import { parseApprovalAdmins } from './approval-admins.js';
import { parseAllowlist as parseAccessList } from './access-lists.js';
import { parseDuration } from '../domain/duration.js';
import { DEFAULT_SCHEDULE_LIMITS, parseMinInterval, parseScheduleLimits } from './schedules.js';
import { bool, envShape, int, mib, num, prefixed, url, v } from './fields.js';
import { llmRecordFields } from './llm-record.js';
import { DEFAULT_MAX_IMAGE_DIMENSION_PX } from '../ports/artifact-renderer.js';

/** The version of the sandbox image definition; bump when sandbox/image changes incompatibly. */
export const SANDBOX_IMAGE_REPO = 'threadlab-sandbox';

export const llm = {
  apiKey: v('OPENAI_API_KEY', z.string().min(1).optional()),
  baseUrl: v('OPENAI_BASE_URL', url.optional()),
  model: v('OPENAI_MODEL', z.string().min(1).default('gpt-4.1-mini')),
  maxRounds: v('THREADLAB_LLM_MAX_ROUNDS', int(1, 100).default(12)),
  tokenBudget: v('THREADLAB_LLM_TOKEN_BUDGET', int(1000).default(300_000)),
  turnTimeoutMs: v('THREADLAB_LLM_TURN_TIMEOUT_MS', int(1000).default(600_000)),
  requestTimeoutMs: v('THREADLAB_LLM_REQUEST_TIMEOUT_MS', int(1000).default(120_000)),
  maxRetries: v('THREADLAB_LLM_MAX_RETRIES', int(0, 10).default(3)),
  temperature: v('THREADLAB_LLM_TEMPERATURE', num(0, 2).optional()),
  images: v('THREADLAB_LLM_IMAGES', bool.default(true)),
  stream: v('THREADLAB_LLM_STREAM', bool.default(true)),
  tools: v('THREADLAB_LLM_TOOLS', z.enum(['auto', 'native', 'text']).default('auto')),
  dialect: v('THREADLAB_LLM_DIALECT', z.string().max(500).optional()),
  memoryTokens: v('THREADLAB_MEMORY_TOKENS', int(500).default(24_000)),
  /** The model's context window in tokens; unset: learned from the server (issue 37). */
  contextTokens: v('THREADLAB_LLM_CONTEXT_TOKENS', int(512, 10_000_000).optional()),
  verifyFigures: v('THREADLAB_VERIFY_FIGURES', z.enum(['off', 'mark', 'ask']).default('ask')),
};

export const slack = {
  botToken: v('SLACK_BOT_TOKEN', prefixed('xoxb-', 'a bot token').optional()),
  appToken: v('SLACK_APP_TOKEN', prefixed('xapp-', 'an app-level token').optional()),
  signingSecret: v(
    'SLACK_SIGNING_SECRET',
    z
      .string()
      .regex(/^[a-f0-9]{16,}$/i, { error: 'expected the hex signing secret of the app' })
      .optional(),
  ),
  apiUrl: v('SLACK_API_URL', url.optional()),
  mode: v('THREADLAB_SLACK_MODE', z.enum(['socket', 'http']).default('socket')),
  port: v('THREADLAB_SLACK_PORT', int(1, 65535).default(3000)),
  // Unset: all interfaces. HTTP mode exists to be reached by Slack, and bolt checks every request's signature.
  host: v('THREADLAB_SLACK_HOST', z.string().min(1).optional()),
  command: v(
    'THREADLAB_SLACK_COMMAND',
    z
      .string()
      .regex(/^\/[a-z0-9_-]{1,31}$/, { error: 'expected a slash command such as /interpreter' })
      .default('/interpreter'),
  ),
  followThreads: v('THREADLAB_SLACK_FOLLOW_THREADS', bool.default(true)),
};

export const discord = {
  token: v(
    'DISCORD_TOKEN',
    z
      .string()
      .regex(/^[\w-]{20,}\.[\w-]{4,}\.[\w-]{20,}$/, { error: 'expected a bot token (three dot-separated parts)' })
      .optional(),
  ),
  applicationId: v(
    'DISCORD_APPLICATION_ID',
    z
      .string()
      .regex(/^\d{15,22}$/, { error: 'expected the numeric application id' })
      .optional(),
  ),
  apiUrl: v('DISCORD_API_URL', url.optional()),
  maxUploadBytes: v('THREADLAB_DISCORD_MAX_UPLOAD_MB', num(1, 500).default(10), mib),
};

export const web = {
  enabledSetting: v('THREADLAB_WEB_ENABLED', z.enum(['auto', 'true', 'false']).default('auto')),
  host: v('THREADLAB_WEB_HOST', z.string().min(1).default('127.0.0.1')),
  port: v('THREADLAB_WEB_PORT', int(0, 65535).default(8787)),
  token: v('THREADLAB_WEB_TOKEN', z.string().min(16, { error: 'expected at least 16 characters' }).optional()),
  maxStreams: v('THREADLAB_WEB_MAX_STREAMS', int(1, 100_000).default(1000)),
  maxConnections: v('THREADLAB_WEB_MAX_CONNECTIONS', int(2, 200_000).default(1500)),
};

export const sandbox = {
  dockerHost: v(
    'DOCKER_HOST',
    z
      .string()
      .regex(/^(unix|tcp|npipe|ssh|http|https):\/\//, { error: 'expected unix:///path, tcp://host:port or ssh://…' })
      .optional(),
  ),
  image: v('THREADLAB_SANDBOX_IMAGE', z.string().min(1).optional()),
  base: v('THREADLAB_SANDBOX_BASE', z.enum(['auto', 'registry', 'debootstrap']).default('auto')),
  /** OCI runtime of sandboxes: gVisor's runsc when the engine has it registered (auto), else runc. */
  runtime: v('THREADLAB_SANDBOX_RUNTIME', z.enum(['auto', 'runc', 'runsc']).default('auto')),
  /**
   * gVisor's platform (runtime `runsc-<platform>`, registered by scripts/ensure-docker.sh): auto takes the fastest
   * that passed a bounded probe of the sandbox image (cached per runsc version and kernel), ptrace the fallback.
   */
  platform: v('THREADLAB_SANDBOX_PLATFORM', z.enum(['auto', 'ptrace', 'kvm', 'systrap']).default('auto')),
  memoryMb: v('THREADLAB_SANDBOX_MEMORY_MB', int(64).default(1024)),
  cpus: v('THREADLAB_SANDBOX_CPUS', num(0.1, 64).default(1)),
  pids: v('THREADLAB_SANDBOX_PIDS', int(16, 100_000).default(128)),
  nofile: v('THREADLAB_SANDBOX_NOFILE', int(64, 1_048_576).default(512)),
  fileSizeMb: v('THREADLAB_SANDBOX_FILE_SIZE_MB', int(1).default(256)),
  dataMb: v('THREADLAB_SANDBOX_DATA_MB', int(16).default(512)),
  tmpMb: v('THREADLAB_SANDBOX_TMP_MB', int(8).default(256)),
  timeoutMs: v('THREADLAB_SANDBOX_TIMEOUT_MS', int(100).default(60_000)),
  graceMs: v('THREADLAB_SANDBOX_GRACE_MS', int(100).default(3000)),
  /** Time budget of one request for file previews. */
  previewTimeoutMs: v('THREADLAB_PREVIEW_TIMEOUT_MS', int(100, 600_000).default(10_000)),
  outputBytes: v('THREADLAB_SANDBOX_OUTPUT_BYTES', int(1024).default(256 * 1024)),
  /**
   * A thread's container goes after this idle time once nothing would be lost with it: its Python variables are
   * saved (durable threads) and it holds no R or JavaScript session. The next message brings it back.
   */
  idleTtlMs: v('THREADLAB_SANDBOX_IDLE_TTL_MS', int(1000).default(5 * 60_000)),
  /** The idle time of a container whose variables are not saved (durable threads off, a save that failed, R or JavaScript). */
  unsavedIdleTtlMs: v('THREADLAB_SANDBOX_UNSAVED_IDLE_TTL_MS', int(1000).default(60 * 60_000)),
  /**
   * Once a live thread has been idle this long with its variables saved, its Python kernel (the data stack and
   * variables in memory) is replaced by a lean one in the same container; the variables come back before its next
   * run. 0 turns it off.
   */
  kernelIdleMs: v(
    'THREADLAB_SANDBOX_KERNEL_IDLE_MS',
    int(0)
      .refine((ms) => ms <= 0 || ms >= 1000, { error: 'expected 0 (off) or at least 1000 ms' })
      .default(60_000),
  ),
  maxAgeMs: v('THREADLAB_SANDBOX_MAX_AGE_MS', int(1000).default(24 * 60 * 60_000)),
  maxSessions: v('THREADLAB_SANDBOX_MAX_SESSIONS', int(1).default(32)),
  poolSize: v('THREADLAB_SANDBOX_POOL_SIZE', int(0, 64).default(2)),
  /**
   * The pool grows with recent demand up to this many ready containers, as far as the host's memory has room
   * (sandbox/pool-headroom.ts), and shrinks back when it ages out. 64: a burst of 50 new threads meets a pool of 50.
   */
  poolMax: v('THREADLAB_SANDBOX_POOL_MAX', int(0, 256).default(64)),
  maxFileBytes: v('THREADLAB_MAX_FILE_MB', int(1, 2048).default(100), mib),
  /** Bytes of changed files one run may bring back (a file counts the larger of its size and its blocks). */
  maxRunFilesBytes: v('THREADLAB_MAX_RUN_FILES_MB', int(1, 65_536).optional(), (mb) =>
    mb === undefined ? undefined : mib(mb),
  ),
  /** Largest attached script run with `run` (a notebook's JSON included). */
  scriptMaxBytes: v('THREADLAB_SCRIPT_MAX_KB', int(1, 10_240).default(512), (kb) => kb * 1024),
  /** Most cells (fenced blocks of a message, code cells of a notebook) one message runs. */
  maxRunCells: v('THREADLAB_RUN_MAX_CELLS', int(1, 500).default(50)),
  filesTtlMs: v('THREADLAB_FILES_TTL_MS', int(60_000).default(7 * 24 * 60 * 60_000)),
  /** Largest saved state of a thread's variables (durable threads); 0 turns saving off. */
  stateMaxBytes: v('THREADLAB_STATE_MAX_MB', int(0, 65_536).default(256), mib),
  /** How long after a run its variables are saved, unless another request comes first. */
  stateSaveDelayMs: v('THREADLAB_STATE_SAVE_DELAY_MS', int(0, 600_000).default(1000)),
};

export const replies = {
  maxImageDimensionPx: v('THREADLAB_REPLY_MAX_IMAGE_PX', int(256, 8192).default(DEFAULT_MAX_IMAGE_DIMENSION_PX)),
  maxOutputLines: v('THREADLAB_REPLY_MAX_OUTPUT_LINES', int(5).default(60)),
  /** PNGs up to this size are posted as the sandbox made them; larger ones are re-encoded smaller. */
  keepPngKb: v('THREADLAB_REPLY_KEEP_PNG_KB', int(0, 10_240).default(64)),
};

/** Where every piece of state processes share lives (queue, memory, budgets, approvals, schedules); unset: memory. */
export const redis = {
  url: v(
    'REDIS_URL',
    z
      .string()
      .regex(/^rediss?:\/\//, { error: 'expected redis://host:port or rediss://…' })
      .optional(),
  ),
};

export const queue = {
  concurrency: v('THREADLAB_CONCURRENCY', int(1, 256).default(4)),
  /** Turns parked at once per worker, waiting on a person with their slot let go; unset: 4 × concurrency. */
  maxParked: v('THREADLAB_MAX_PARKED', int(0, 4096).optional()),
  userMaxConcurrent: v('THREADLAB_USER_MAX_CONCURRENT', int(1).default(2)),
  userMaxPerMinute: v('THREADLAB_USER_MAX_PER_MINUTE', int(1).default(20)),
  workspaceMaxConcurrent: v('THREADLAB_WORKSPACE_MAX_CONCURRENT', int(1).default(16)),
  workspaceMaxPerMinute: v('THREADLAB_WORKSPACE_MAX_PER_MINUTE', int(1).default(200)),
  maxQueueLength: v('THREADLAB_QUEUE_MAX_LENGTH', int(1).default(1000)),
  /** Schedule firings one workspace may queue per minute, all its schedules together (never the creator's limits). */
  scheduleFiringsPerMinute: v('THREADLAB_SCHEDULE_MAX_FIRINGS_PER_MINUTE', int(1, 100_000).default(30)),
  shutdownTimeoutMs: v('THREADLAB_SHUTDOWN_TIMEOUT_MS', int(0).default(30_000)),
};

export const storage = {
  dataDir: v('THREADLAB_DATA_DIR', z.string().min(1).default(join(homedir(), '.threadlab'))),
};

export const ops = {
  logLevel: v(
    'THREADLAB_LOG_LEVEL',
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  logPretty: v('THREADLAB_LOG_PRETTY', bool.default(false)),
  role: v('THREADLAB_ROLE', z.enum(['all', 'gateway', 'worker']).default('all')),
  metricsPort: v('THREADLAB_METRICS_PORT', int(0, 65535).optional()),
  metricsHost: v('THREADLAB_METRICS_HOST', z.string().min(1).default('127.0.0.1')),
};

/** A string read by `parse`, whose thrown message becomes the variable's issue. */
const parsedBy = <T>(parse: (text: string) => T) =>
  z.string().transform((text, ctx): T => {
    try {
      return parse(text);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });

/** Network access from sandboxes through the bot's egress gateway; off while THREADLAB_EGRESS_ALLOW is unset. */
export const egress = {
  allow: v('THREADLAB_EGRESS_ALLOW', parsedBy(parseAllowlist).optional()),
  credentials: v('THREADLAB_EGRESS_CREDENTIALS', parsedBy(parseCredentialSpecs).optional()),
  maxConnections: v('THREADLAB_EGRESS_MAX_CONNECTIONS', int(1, 100_000).default(128)),
  maxBytes: v('THREADLAB_EGRESS_MAX_MB', int(1, 65_536).default(512), mib),
};

/** Daily budgets per user and per workspace (0: no budget); all off by default. Counted per UTC day. */
export const budgets = {
  userDailyTokens: v('THREADLAB_BUDGET_USER_DAILY_TOKENS', int(0).default(0)),
  userDailyRunSeconds: v('THREADLAB_BUDGET_USER_DAILY_RUN_SECONDS', int(0).default(0)),
  workspaceDailyTokens: v('THREADLAB_BUDGET_WORKSPACE_DAILY_TOKENS', int(0).default(0)),
  workspaceDailyRunSeconds: v('THREADLAB_BUDGET_WORKSPACE_DAILY_RUN_SECONDS', int(0).default(0)),
  warnPercent: v('THREADLAB_BUDGET_WARN_PERCENT', int(1, 99).default(80)),
};

/** The audit trail (src/governance/audit*.ts): where its lines go and how much of it a file keeps. */
export const audit = {
  log: v(
    'THREADLAB_AUDIT_LOG',
    z
      .string()
      .regex(/^(off|stdout|\/.*)$/, { error: 'expected off, stdout or an absolute file path' })
      .optional(),
  ),
  maxBytes: v('THREADLAB_AUDIT_MAX_MB', int(1, 65_536).default(64), mib),
  keepFiles: v('THREADLAB_AUDIT_FILES', int(1, 1000).default(4)),
};

/** Who may use the bot where (Slack, Discord); every list unset: anyone, anywhere. See README "Administering Threadlab". */
export const access = {
  places: v('THREADLAB_ACCESS_PLACES', parsedBy((t) => parseAccessList(t, 'place')).optional()),
  users: v('THREADLAB_ACCESS_USERS', parsedBy((t) => parseAccessList(t, 'who')).optional()),
  directPlaces: v('THREADLAB_ACCESS_DIRECT_PLACES', parsedBy((t) => parseAccessList(t, 'place')).optional()),
  directUsers: v('THREADLAB_ACCESS_DIRECT_USERS', parsedBy((t) => parseAccessList(t, 'who')).optional()),
  help: v(
    'THREADLAB_ACCESS_HELP',
    z.string().max(500).default('Ask the admin of this workspace to add you or this channel to Threadlab.'),
  ),
  noticeMemory: v('THREADLAB_ACCESS_NOTICE_MEMORY', int(1, 1_000_000).default(10_000)),
};

/** Approval before running code the model wrote (off by default); see README "Administering Threadlab". */
export const approval = {
  mode: v('THREADLAB_APPROVAL', z.enum(['off', 'ask']).default('off')),
  timeoutMs: v('THREADLAB_APPROVAL_TIMEOUT_MS', int(1000, 86_400_000).default(300_000)),
  admins: v('THREADLAB_APPROVAL_ADMINS', parsedBy(parseApprovalAdmins).optional(), (a) => a ?? []),
};

/** A retention setting: `30d`, `12h`, `90m`, `2w`, or `off` (kept until purged), in ms (undefined: off). */
function parseRetention(text: string): number | undefined {
  if (text === 'off') return undefined;
  const ms = parseDuration(text);
  if (ms === undefined) throw new Error('expected a duration with its unit (90m, 12h, 30d, 2w) or off');
  return ms;
}

/** Scheduled reports (README "Scheduled reports"): how many, and how often at most. */
export const schedules = {
  limits: v('THREADLAB_SCHEDULES', parsedBy(parseScheduleLimits).optional(), (l) => l ?? DEFAULT_SCHEDULE_LIMITS),
  minIntervalMs: v('THREADLAB_SCHEDULE_MIN_INTERVAL', parsedBy(parseMinInterval).optional(), (ms) => ms ?? 3_600_000),
};

/** Timed retention in `threadlab start` (README "Administering Threadlab → Retention"); unset or off: kept. */
export const retention = {
  stateMs: v('THREADLAB_RETENTION_STATE', parsedBy(parseRetention).optional()),
  webHistoryMs: v('THREADLAB_RETENTION_WEB_HISTORY', parsedBy(parseRetention).optional()),
  auditMs: v('THREADLAB_RETENTION_AUDIT', parsedBy(parseRetention).optional()),
};

/** Read-only SQL sources (docs/data-sources.md): a JSON file, validated at start by src/config/sources.ts. */
export const sources = {
  file: v('THREADLAB_SOURCES_FILE', z.string().min(1).max(4096).optional()),
};

export const sections = {
  llm,
  llmRecord: llmRecordFields,
  slack,
  discord,
  web,
  sandbox,
  replies,
  redis,
  queue,
  ops,
  storage,
  egress,
  budgets,
  audit,
  access,
  approval,
  retention,
  schedules,
  sources,
};

/** Every environment variable Threadlab reads, with its default: the README's configuration table. */
export const envSchema = z.object(Object.assign({}, ...Object.values(sections).map(envShape)) as z.ZodRawShape);
