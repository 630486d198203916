import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../src/config/index.js';
import { createDocker, sandboxImageTag, cachedRanking } from '../../app/sandbox-kit.js';
import { pingRedis } from '../../adapters/redis/connection.js';
import { formatChecks, runDoctor } from '../doctor.js';
import { probeSource } from '../../adapters/postgres/role-check.js';
import { createLogger } from '../../src/logger.js';
import { createLlmClient } from '../../app/index.js';

export const doctorCommand: Command = {
  name: 'doctor',
  usage: `Usage: threadlab doctor [--no-model]

Checks every component and prints one line each, with how to fix what is wrong:
Docker engine reachable, sandbox image present and its version, Redis reachable (when REDIS_URL is set),
Slack and Discord credentials present and well-formed (and whether the Slack app still runs on the retiring
assistant_view, with how to migrate it to agent_view), and the model: a text round trip, a tool-call
round trip and an image, then what it supports (tools, streaming, usage, images, reasoning) and which
protocol THREADLAB_LLM_TOOLS=auto will use (native tool calls or fenced code blocks); each SQL source of
THREADLAB_SOURCES_FILE: reachable, its server's version, and whether its role could write.
  --no-model   describe the model endpoint without sending it anything
  --probe      probe gVisor's platforms again (a bounded start of the sandbox image under each runsc-<platform>
               runtime) rather than trust the cached results; the fastest that passes is what sandboxes use
Exits 1 when a blocking problem was found.`,
  async run(argv, io) {
    const { values } = parse(argv, { 'no-model': { type: 'boolean' }, probe: { type: 'boolean' } }, 'doctor');
    if (values.help) return (io.out(`${this.usage}\n`), 0);
    let config;
    try {
      config = loadConfig(io.env);
    } catch (err) {
      config = err as Error;
    }
    const docker = createDocker(config instanceof Error ? undefined : config.sandbox.dockerHost);
    const llm =
      config instanceof Error || values['no-model']
        ? undefined
        : createLlmClient(config, createLogger({ level: 'silent', secrets: config.secrets }));
    const rankPlatforms =
      config instanceof Error
        ? undefined
        : cachedRanking({
            docker,
            image: config.sandbox.image ?? sandboxImageTag(),
            limits: config.sandbox,
            logger: createLogger({ level: 'silent', secrets: config.secrets }),
            fresh: Boolean(values.probe),
          });
    const { ok, checks } = await runDoctor({
      config,
      docker,
      pingRedis,
      ...(llm ? { llm } : {}),
      ...(rankPlatforms ? { rankPlatforms } : {}),
      ...(config instanceof Error ? {} : { probeSource: (s) => probeSource(s, config.secrets) }),
    });
    io.out(`${formatChecks(checks)}\n`);
    io.out(ok ? 'Everything needed is in place.\n' : 'Blocking problems found (✘ above).\n');
    return ok ? 0 : 1;
  },
};
