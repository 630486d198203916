import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/logger.js';
import { buildDaemonBot } from '../../app/index.js';
import { CliAdapter } from '../daemon/cli-adapter.js';
import { daemonPaths, stopDaemon } from '../daemon/client.js';
import { configFingerprint } from '../daemon/fingerprint.js';
import { ensurePrivateDir } from '../daemon/private-dir.js';
import { DaemonServer } from '../daemon/server.js';
import { dataDirLayout } from '../../src/domain/data-dir.js';

export const daemonCommand: Command = {
  name: 'daemon',
  usage: `Usage: threadlab daemon [stop]

\`threadlab exec\` and \`threadlab chat\` start this daemon on first use, in the background: it holds
the sandbox sessions and conversation memory between invocations (on a unix socket in
THREADLAB_DATA_DIR, mode 600) and exits, removing its containers, after THREADLAB_SANDBOX_UNSAVED_IDLE_TTL_MS
idle (or THREADLAB_SANDBOX_IDLE_TTL_MS, if longer). A command run with another configuration (endpoint, key, .env) replaces it: the old daemon
finishes its running calls, then exits. THREADLAB_DATA_DIR must belong to you; it is made private (700).
  stop    stop it now (its sessions end)`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {}, 'daemon');
    if (values.help) return (io.out(`${this.usage}\n`), 0);
    const config = loadConfig(io.env);
    if (positionals[0] === 'stop') {
      io.out((await stopDaemon(config.dataDir)) ? 'Daemon stopped.\n' : 'No daemon was running.\n');
      return 0;
    }
    const { previousMode } = ensurePrivateDir(config.dataDir);
    const logger = createLogger({
      level: config.ops.logLevel,
      secrets: config.secrets,
      destination: process.stdout,
    }).child({ component: 'daemon' });
    if (previousMode !== undefined)
      logger.warn(
        { dataDir: config.dataDir, previousMode: previousMode.toString(8) },
        'data directory made private (700)',
      );
    const adapter = new CliAdapter(logger);
    const { bot, sandbox } = await buildDaemonBot(config, logger, adapter);
    await bot.start();
    const { socket } = daemonPaths(config.dataDir);
    let resolveDone: () => void = () => {};
    const done = new Promise<void>((r) => (resolveDone = r));
    const server = new DaemonServer({
      socketPath: socket,
      sandbox,
      adapter,
      logger,
      configFingerprint: configFingerprint(config),
      stagingDir: dataDirLayout(config.dataDir).cliStaging,
      maxFileBytes: config.sandbox.maxFileBytes,
      idleMs: Math.max(config.sandbox.idleTtlMs, config.sandbox.unsavedIdleTtlMs),
      onShutdown: () => resolveDone(),
    });
    await server.listen();
    logger.info({ socket, pid: process.pid }, 'daemon ready');
    process.once('SIGTERM', () => resolveDone());
    process.once('SIGINT', () => resolveDone());
    await done;
    await server.close();
    await bot.stop();
    logger.info('daemon stopped');
    return 0;
  },
};
