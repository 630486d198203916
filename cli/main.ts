import { existsSync } from 'node:fs';
import { config as loadDotenv } from 'dotenv';
import { isThreadlabError } from '../src/domain/errors.js';
import type { CliIo } from './args.js';
import { commands, type CommandEntry } from './commands/index.js';

function usage(list: CommandEntry[]): string {
  return [
    'Usage: threadlab <command> [options]',
    '',
    'A code-interpreter bot for Slack, Discord and a local web chat.',
    '',
    'Commands:',
    ...list.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`),
    '',
    "Run `threadlab <command> --help` for a command's options. Configuration comes from the",
    'environment and an optional .env file in the current directory (see the README).',
  ].join('\n');
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(`${usage(commands)}\n`);
    return name ? 0 : 2;
  }
  if (name === '--version') {
    io.out('threadlab 0.1.0\n');
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.err(`Unknown command "${name}".\n\n${usage(commands)}\n`);
    return 2;
  }
  try {
    const command = await entry.load();
    return await command.run(rest, io);
  } catch (err) {
    if (isThreadlabError(err)) {
      io.err(`${err.message}\n`);
      return err.code === 'config_invalid' ? 2 : 1;
    }
    io.err(`threadlab ${name} failed: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}

// Run when loaded as the program (bin/threadlab.js imports this module).
if (existsSync('.env')) loadDotenv({ path: '.env', quiet: true });
const io: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};
const code = await main(process.argv.slice(2), io);
if (code !== 0 || process.argv[2] !== 'start') {
  // `start` keeps running until a signal; every other command ends here.
  process.exitCode = code;
}
