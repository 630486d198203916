import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ThreadlabError } from '../src/domain/errors.js';

/** A CLI subcommand: its usage text and what it does. Returns the process exit code. */
export interface Command {
  name: string;
  usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

/** Where a command writes; tests pass buffers. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Record<string, string | undefined>;
}

/** parseArgs with our error style: an unknown flag names itself and points at --help. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, command: string) {
  try {
    return parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new ThreadlabError(
      'config_invalid',
      `${(err as Error).message}\nRun \`threadlab ${command} --help\` for usage.`,
      { isPolicy: true },
    );
  }
}
