import type { z } from 'zod';
import { parseEndpointUrl } from '../domain/endpoint-url.js';
import { ThreadlabError } from '../domain/errors.js';
import { resolveEgressSettings, type EgressSettings } from '../egress/settings.js';
import { readSection, type SectionOf } from './fields.js';
import { llmRecordFields } from './llm-record.js';
import { isLoopbackHost } from '../domain/loopback.js';
import {
  access,
  approval,
  audit,
  budgets,
  discord,
  egress,
  envSchema,
  llm,
  ops,
  queue,
  redis,
  replies,
  retention,
  sandbox,
  schedules,
  slack,
  sources,
  storage,
  web,
} from './sections.js';
import { loadSources, type SourceSettings } from './sources.js';
import { dataDirLayout } from '../domain/data-dir.js';

/** Parsed configuration, one section per concern; the only reader of the environment. */
export interface Config {
  llm: SectionOf<typeof llm> & {
    /** A model endpoint is configured (a key or a base URL); without one only direct mode runs. */
    configured: boolean;
  };
  /** Recording of each turn's model exchanges (THREADLAB_LLM_RECORD*); off while `recordDir` is unset. */
  llmRecord: SectionOf<typeof llmRecordFields>;
  slack: SectionOf<typeof slack> & { enabled: boolean };
  discord: SectionOf<typeof discord> & { enabled: boolean };
  web: SectionOf<typeof web> & { enabled: boolean };
  sandbox: Omit<SectionOf<typeof sandbox>, 'maxRunFilesBytes'> & {
    /** Bytes of changed files one run may bring back. @defaultValue twice `maxFileBytes` */
    maxRunFilesBytes: number;
  };
  replies: SectionOf<typeof replies>;
  redis: SectionOf<typeof redis>;
  queue: Omit<SectionOf<typeof queue>, 'maxParked'> & {
    /** Turns parked at once per worker (THREADLAB_MAX_PARKED); 0: none. @defaultValue 4 × `concurrency` */
    maxParked: number;
  };
  /** Allowlists of places and people (THREADLAB_ACCESS_*). */
  access: SectionOf<typeof access>;
  /** Daily token and run-time budgets (THREADLAB_BUDGET_*). */
  budgets: SectionOf<typeof budgets>;
  ops: SectionOf<typeof ops>;
  /** Approval before running the model's code (THREADLAB_APPROVAL*). */
  approval: SectionOf<typeof approval>;
  /** How long each kind of data is kept, in ms; undefined: until purged (THREADLAB_RETENTION_*). */
  retention: SectionOf<typeof retention>;
  /** Scheduled reports' bounds (THREADLAB_SCHEDULES, THREADLAB_SCHEDULE_MIN_INTERVAL). */
  schedules: SectionOf<typeof schedules>;
  /** The egress gateway's settings; `undefined` (no network at all) while THREADLAB_EGRESS_ALLOW is unset. */
  egress: EgressSettings | undefined;
  /**
   * The audit trail: `destination` from THREADLAB_AUDIT_LOG; `path` the file (unset:
   * `<dataDir>/audit.jsonl`), rotated past `maxBytes` with `keepFiles` rotated files kept.
   */
  audit: { destination: 'off' | 'stdout' | 'file'; path: string; maxBytes: number; keepFiles: number };
  /** Where thread files, the web chat's history and uploads are kept (THREADLAB_DATA_DIR). */
  dataDir: string;
  /** Read-only SQL sources from THREADLAB_SOURCES_FILE (empty while unset), credentials resolved. */
  sources: SourceSettings[];
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

/** Rules across variables, each naming the variable to set. */
function crossChecks(c: Omit<Config, 'secrets' | 'dataDir' | 'egress' | 'audit' | 'sources'>): string[] {
  const problems: string[] = [];
  if (c.slack.enabled) {
    if (!c.slack.botToken) problems.push('SLACK_BOT_TOKEN: required when Slack is configured (xoxb-…)');
    if (c.slack.mode === 'socket' && !c.slack.appToken)
      problems.push('SLACK_APP_TOKEN: required in Socket Mode (xapp-…); or set THREADLAB_SLACK_MODE=http');
    if (c.slack.mode === 'http' && !c.slack.signingSecret)
      problems.push('SLACK_SIGNING_SECRET: required in HTTP mode to verify requests');
  }
  if (c.discord.token && !c.discord.applicationId) problems.push('DISCORD_APPLICATION_ID: required with DISCORD_TOKEN');
  if (!isLoopbackHost(c.web.host) && !c.web.token)
    problems.push(`THREADLAB_WEB_TOKEN: required when THREADLAB_WEB_HOST is not loopback (${c.web.host})`);
  return problems;
}

/** THREADLAB_AUDIT_LOG resolved: off, stdout, or a file (by default in the data directory, beside what it records). */
function auditSettings(a: SectionOf<typeof audit>, dataDir: string): Config['audit'] {
  const destination = a.log === 'off' || a.log === 'stdout' ? a.log : 'file';
  const path = a.log && destination === 'file' ? a.log : dataDirLayout(dataDir).audit;
  return { destination, path, maxBytes: a.maxBytes, keepFiles: a.keepFiles };
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
  const env = parsed.data as Record<string, unknown>;
  const s = readSection(slack, env);
  const d = readSection(discord, env);
  const w = readSection(web, env);
  const l = readSection(llm, env);
  const slackEnabled = Boolean(s.botToken || s.appToken || s.signingSecret);
  const discordEnabled = Boolean(d.token);
  const sb = readSection(sandbox, env);
  const q = readSection(queue, env);
  const config = {
    llm: { ...l, configured: Boolean(l.apiKey || l.baseUrl) },
    llmRecord: readSection(llmRecordFields, env),
    slack: { ...s, enabled: slackEnabled },
    discord: { ...d, enabled: discordEnabled },
    web: {
      ...w,
      enabled: w.enabledSetting === 'true' || (w.enabledSetting === 'auto' && !slackEnabled && !discordEnabled),
    },
    sandbox: { ...sb, maxRunFilesBytes: sb.maxRunFilesBytes ?? 2 * sb.maxFileBytes },
    replies: readSection(replies, env),
    redis: readSection(redis, env),
    queue: { ...q, maxParked: q.maxParked ?? 4 * q.concurrency },
    access: readSection(access, env),
    budgets: readSection(budgets, env),
    ops: readSection(ops, env),
    approval: readSection(approval, env),
    retention: readSection(retention, env),
    schedules: readSection(schedules, env),
  };
  // Credential values come from variables the operator names, so they are read here, by name.
  const egressSettings = resolveEgressSettings(readSection(egress, env), (name) => source[name]);
  const problems = [...crossChecks(config), ...egressSettings.problems];
  const sourcesFile = readSection(sources, env).file;
  let sourceSettings: ReturnType<typeof loadSources> = { sources: [], secrets: [] };
  try {
    if (sourcesFile) sourceSettings = loadSources(sourcesFile, (name) => source[name]);
  } catch (err) {
    problems.push((err as Error).message);
  }
  if (problems.length > 0) {
    throw new ThreadlabError('config_invalid', `Invalid configuration:\n${problems.join('\n')}`, { isPolicy: true });
  }
  return {
    ...config,
    egress: egressSettings.settings,
    sources: sourceSettings.sources,
    dataDir: readSection(storage, env).dataDir,
    audit: auditSettings(readSection(audit, env), readSection(storage, env).dataDir),
    secrets: [
      l.apiKey,
      s.botToken,
      s.appToken,
      s.signingSecret,
      d.token,
      w.token,
      ...(l.baseUrl ? parseEndpointUrl(l.baseUrl).secrets : []),
      ...(config.redis.url ? parseEndpointUrl(config.redis.url.replace(/^rediss?:/, 'http:')).secrets : []),
      // The whole header value, and its token without a scheme such as "Bearer ".
      ...(egressSettings.settings?.credentials.flatMap((c) => [c.value, c.value.replace(/^\S+\s+/, '')]) ?? []),
      ...sourceSettings.secrets,
    ].filter((secret): secret is string => typeof secret === 'string' && secret.length >= 6),
  };
}
