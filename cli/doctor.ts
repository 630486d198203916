import type Docker from 'dockerode';
import type { Config } from '../src/config/index.js';
import { parseEndpointUrl } from '../src/domain/endpoint-url.js';
import { toThreadlabError } from '../src/domain/errors.js';
import type { LlmClient } from '../src/ports/llm-client.js';
import { describeProbe, probeModel } from './model-probe.js';
import { checkSources, type ProbeSource } from './doctor-sources.js';
import type { Check, CheckStatus } from './doctor-check.js';
import { MIGRATE_TO_AGENT_VIEW, readAssistantViewNote } from '../adapters/slack/migration-notice.js';
import {
  sandboxImageTag,
  VERSION_LABEL,
  resolveRuntime,
  RUNSC_INSTALL_HINT,
  type RankPlatforms,
} from '../app/sandbox-kit.js';

export interface DoctorDeps {
  /** The parsed configuration, or the error that parsing raised. */
  config: Config | Error;
  docker: Pick<Docker, 'ping' | 'version' | 'getImage' | 'info'>;
  /** Pings Redis at the URL; rejects when it does not answer. */
  pingRedis: (url: string) => Promise<void>;
  /** The configured model's client, to probe what it supports; without it the endpoint is only described. */
  llm?: LlmClient;
  /** Probes gVisor's platforms (sandbox/platform-cache.ts cachedRanking); without it the platform is not probed. */
  rankPlatforms?: RankPlatforms;
  /** Connects to one SQL source and reads its role's privileges; without it the sources are not checked. */
  probeSource?: ProbeSource;
}

async function checkDocker(
  docker: DoctorDeps['docker'],
  config: Config,
  rankPlatforms?: RankPlatforms,
): Promise<Check[]> {
  const where = config.sandbox.dockerHost ?? 'unix:///var/run/docker.sock';
  try {
    await docker.ping();
    const version = await docker.version();
    const checks: Check[] = [
      {
        name: 'Docker engine',
        status: 'ok',
        detail: `reachable at ${where} (engine ${version.Version}, API ${version.ApiVersion})`,
      },
    ];
    const tag = config.sandbox.image ?? sandboxImageTag();
    try {
      const info = await docker.getImage(tag).inspect();
      const label = info.Config?.Labels?.[VERSION_LABEL] ?? 'unlabelled';
      const mb = Math.round((info.Size ?? 0) / 1024 / 1024);
      checks.push({ name: 'Sandbox image', status: 'ok', detail: `${tag} present (version ${label}, ${mb} MB)` });
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode !== 404) throw err;
      checks.push({
        name: 'Sandbox image',
        status: 'fail',
        detail: `${tag} is missing`,
        fix: config.sandbox.image
          ? `build or load ${tag}, or unset THREADLAB_SANDBOX_IMAGE`
          : 'run `threadlab sandbox build` (about 2 minutes; `threadlab start` also builds it on first use)',
      });
    }
    checks.push(await checkRuntime(docker, config, rankPlatforms));
    return checks;
  } catch (err) {
    return [
      {
        name: 'Docker engine',
        status: 'fail',
        detail: `not reachable at ${where}: ${toThreadlabError(err).message.replace(/^Unexpected failure: /, '')}`,
        fix: 'start the engine (`bash scripts/ensure-docker.sh` installs and starts it as root on Debian/Ubuntu), or set DOCKER_HOST',
      },
      { name: 'Sandbox image', status: 'skip', detail: 'not checked without a Docker engine' },
      { name: 'Sandbox runtime', status: 'skip', detail: 'not checked without a Docker engine' },
    ];
  }
}

/**
 * Which runtime sandboxes get (THREADLAB_SANDBOX_RUNTIME against the engine's runtimes) and why; under gVisor, the
 * platform (THREADLAB_SANDBOX_PLATFORM, or the probe's fastest) and what the probe found.
 */
async function checkRuntime(docker: DoctorDeps['docker'], config: Config, rank?: RankPlatforms): Promise<Check> {
  try {
    const choice = await resolveRuntime(docker, config.sandbox.runtime, {
      platform: config.sandbox.platform,
      ...(rank ? { rank } : {}),
    });
    if (!choice.fallback)
      return { name: 'Sandbox runtime', status: 'ok', detail: `${choice.runtime}: ${choice.reason}` };
    return {
      name: 'Sandbox runtime',
      status: 'warn',
      detail: `${choice.runtime}: ${choice.reason}`,
      fix: `for gVisor as a second wall, ${RUNSC_INSTALL_HINT}`,
    };
  } catch (err) {
    return {
      name: 'Sandbox runtime',
      status: 'fail',
      detail: (err as Error).message,
      fix: RUNSC_INSTALL_HINT,
    };
  }
}

async function checkRedis(config: Config, pingRedis: DoctorDeps['pingRedis']): Promise<Check> {
  const url = config.redis.url;
  if (!url)
    return { name: 'Redis', status: 'ok', detail: 'not configured: queue and sessions are in-process (one machine)' };
  const shown = url.replace(/\/\/[^@]*@/, '//***@');
  try {
    await pingRedis(url);
    return { name: 'Redis', status: 'ok', detail: `reachable at ${shown}` };
  } catch (err) {
    return {
      name: 'Redis',
      status: 'fail',
      detail: `not reachable at ${shown}: ${(err as Error).message}`,
      fix: 'start Redis or correct REDIS_URL',
    };
  }
}

function checkPlatforms(config: Config): Check[] {
  const slack: Check = config.slack.enabled
    ? {
        name: 'Slack',
        status: 'ok',
        detail: `credentials present and well-formed (${config.slack.mode} mode${config.slack.apiUrl ? `, API ${config.slack.apiUrl}` : ''})`,
      }
    : {
        name: 'Slack',
        status: 'skip',
        detail: 'not configured',
        fix: 'set SLACK_BOT_TOKEN and SLACK_APP_TOKEN (see adapters/slack/README.md)',
      };
  const discord: Check = config.discord.enabled
    ? {
        name: 'Discord',
        status: 'ok',
        detail: `token and application id present and well-formed${config.discord.apiUrl ? ` (API ${config.discord.apiUrl})` : ''}`,
      }
    : {
        name: 'Discord',
        status: 'skip',
        detail: 'not configured',
        fix: 'set DISCORD_TOKEN and DISCORD_APPLICATION_ID (see adapters/discord/README.md)',
      };
  const web: Check = config.web.enabled
    ? {
        name: 'Web chat',
        status: 'ok',
        detail: `enabled on http://${config.web.host}:${config.web.port}${config.web.token ? ' (token required)' : ''}`,
      }
    : {
        name: 'Web chat',
        status: 'skip',
        detail: 'disabled (a platform is configured); set THREADLAB_WEB_ENABLED=true to keep it',
      };
  const slackApp = config.slack.enabled ? checkSlackApp(config.dataDir) : undefined;
  return [slack, ...(slackApp ? [slackApp] : []), discord, web];
}

/**
 * Whether the bot noted (in THREADLAB_DATA_DIR) that its Slack app still receives `assistant_thread_started`, the
 * event of the retiring `assistant_view`; undefined when it did not, or the app was seen on `agent_view` since.
 */
export function checkSlackApp(dataDir: string): Check | undefined {
  const note = readAssistantViewNote(dataDir);
  if (!note) return undefined;
  return {
    name: 'Slack app',
    status: 'warn',
    detail: `on assistant_view: workspace ${note.workspace} sent assistant_thread_started (${new Date(note.atMs).toISOString()})`,
    fix: MIGRATE_TO_AGENT_VIEW,
  };
}

async function checkLlm(config: Config, llm: LlmClient | undefined): Promise<Check> {
  if (!config.llm.configured) {
    return {
      name: 'LLM endpoint',
      status: 'warn',
      detail: 'not configured: only fenced code blocks run (direct mode)',
      fix: 'set OPENAI_API_KEY (and OPENAI_BASE_URL for Azure, Ollama, vLLM, LM Studio) and OPENAI_MODEL',
    };
  }
  const where = `model ${config.llm.model} at ${config.llm.baseUrl ? parseEndpointUrl(config.llm.baseUrl).display : 'the OpenAI API'}${config.llm.apiKey ? ', key set' : ', no key'}`;
  if (!llm) return { name: 'LLM endpoint', status: 'ok', detail: `${where} (not probed)` };
  const setting = config.llm.tools;
  const probe = await probeModel(llm, {
    setting,
    images: config.llm.images,
    ...(config.llm.temperature !== undefined ? { temperature: config.llm.temperature } : {}),
    signal: AbortSignal.timeout(120_000),
  });
  const detail = [where, ...describeProbe(probe, setting)].join('\n');
  if (!probe.text)
    return {
      name: 'LLM endpoint',
      status: 'fail',
      detail,
      fix: 'the line above quotes the server and names the setting to change',
    };
  if (setting === 'native' && probe.tools?.kind !== 'native')
    return {
      name: 'LLM endpoint',
      status: 'fail',
      detail,
      fix: 'set THREADLAB_LLM_TOOLS=auto (or text): this model does not make native tool calls here',
    };
  if (probe.images === 'refused')
    return {
      name: 'LLM endpoint',
      status: 'warn',
      detail,
      fix: 'set THREADLAB_LLM_IMAGES=false: this model is not given chart images then',
    };
  return { name: 'LLM endpoint', status: 'ok', detail };
}

/** Checks every component; the caller prints the lines and exits non-zero when one failed. */
export async function runDoctor(deps: DoctorDeps): Promise<{ ok: boolean; checks: Check[] }> {
  if (deps.config instanceof Error) {
    return {
      ok: false,
      checks: [
        {
          name: 'Configuration',
          status: 'fail',
          detail: deps.config.message,
          fix: 'correct the variables named above (environment or .env)',
        },
      ],
    };
  }
  const config = deps.config;
  const checks: Check[] = [
    { name: 'Configuration', status: 'ok', detail: 'valid' },
    ...(await checkDocker(deps.docker, config, deps.rankPlatforms)),
    await checkRedis(config, deps.pingRedis),
    ...checkPlatforms(config),
    await checkLlm(config, deps.llm),
    ...(deps.probeSource ? await checkSources(config.sources, deps.probeSource) : []),
  ];
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}

const MARK: Record<CheckStatus, string> = { ok: '✔', warn: '!', fail: '✘', skip: '-' };

export function formatChecks(checks: Check[]): string {
  return checks
    .map(
      (c) =>
        `${MARK[c.status]} ${c.name.padEnd(15)} ${c.detail.replace(/\n/g, '\n    ')}${c.fix ? `\n    → ${c.fix}` : ''}`,
    )
    .join('\n');
}
