import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/logger.js';
import { buildBot, createRetentionSweeper, roleProblem, type Role } from '../../app/index.js';
import { startOps } from '../ops.js';
import { prepareImage } from './prepare-image.js';
import { createMetrics } from '../../src/ops/metrics.js';

export const startCommand: Command = {
  name: 'start',
  usage: `Usage: threadlab start [--role all|gateway|worker]

Runs Threadlab. With Slack and/or Discord configured it connects to them; with neither, it serves
the local web chat (http://127.0.0.1:8787 by default). Builds the sandbox image on first use.
  --role all        everything in one process (default; THREADLAB_ROLE)
  --role gateway    platform connections only; needs REDIS_URL, no Docker
  --role worker     sandbox and LLM loop only; needs REDIS_URL and Docker
Stops gracefully on SIGINT/SIGTERM: no new jobs, running ones finish or go back to the queue.`,
  async run(argv, io) {
    const { values } = parse(argv, { role: { type: 'string' } }, 'start');
    if (values.help) return (io.out(`${this.usage}\n`), 0);
    const config = loadConfig(io.env);
    const role = (values.role ?? config.ops.role) as Role;
    if (!['all', 'gateway', 'worker'].includes(role)) {
      io.err(`--role: expected all, gateway or worker (got "${role}")\n`);
      return 2;
    }
    if (role !== 'all' && !config.redis.url) {
      io.err(`--role ${role} needs REDIS_URL: gateways and workers meet in Redis.\n`);
      return 2;
    }
    const roleError = roleProblem(config, role);
    if (roleError) {
      io.err(`${roleError}\n`);
      return 2;
    }
    const logger = createLogger({ level: config.ops.logLevel, secrets: config.secrets });
    if (role !== 'gateway') await prepareImage(config, io);
    const metrics = createMetrics({ role });
    const bot = await buildBot(config, logger, { role, metrics });
    try {
      await bot.start({ gateway: role !== 'worker', worker: role !== 'gateway' });
    } catch (err) {
      // The sandbox already warmed containers and timers keep the process alive: undo everything, so a
      // failed start ends the process (the CLI prints the error and exits non-zero) and leaves nothing behind.
      await bot.stop().catch((stopErr: unknown) => logger.error({ err: stopErr }, 'clean-up after a failed start'));
      io.err('Threadlab could not start; its sandbox containers were removed.\n');
      throw err;
    }
    const ops = await startOps({ config, logger, metrics, runsCode: role !== 'gateway' });
    // THREADLAB_RETENTION_*: a sweep now and hourly, in the role where each kind of data lives.
    const sweeper = createRetentionSweeper({ config, logger, role });
    sweeper?.start();
    const web = bot.browserUrl();
    io.out(`Threadlab is running (role ${role}).${web ? ` Open the web chat: ${web}` : ''}\n`);

    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) {
          io.err('Forced exit.\n');
          process.exit(130);
        }
        stopping = true;
        logger.info({ signal }, 'shutting down: no new jobs; running ones finish or go back to the queue');
        void Promise.allSettled([sweeper?.stop(), bot.stop(), ops?.close()]).then(() => resolve());
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    return 0;
  },
};
