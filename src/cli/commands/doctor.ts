import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../config.js';
import { createDocker, pingRedis } from '../infra.js';
import { formatChecks, runDoctor } from '../doctor.js';

export const doctorCommand: Command = {
  name: 'doctor',
  usage: `Usage: threadlab doctor

Checks every component and prints one line each, with how to fix what is wrong:
Docker engine reachable, sandbox image present and its version, Redis reachable (when REDIS_URL is set),
Slack and Discord credentials present and well-formed, LLM endpoint configured.
Exits 1 when a blocking problem was found.`,
  async run(argv, io) {
    const { values } = parse(argv, {}, 'doctor');
    if (values.help) return (io.out(`${this.usage}\n`), 0);
    let config;
    try {
      config = loadConfig(io.env);
    } catch (err) {
      config = err as Error;
    }
    const docker = createDocker(config instanceof Error ? undefined : config.sandbox.dockerHost);
    const { ok, checks } = await runDoctor({ config, docker, pingRedis });
    io.out(`${formatChecks(checks)}\n`);
    io.out(ok ? 'Everything needed is in place.\n' : 'Blocking problems found (✘ above).\n');
    return ok ? 0 : 1;
  },
};
