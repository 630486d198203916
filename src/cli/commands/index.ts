import type { Command } from '../args.js';
import { doctorCommand } from './doctor.js';
import { sandboxCommand } from './sandbox-build.js';

/** Every subcommand of `threadlab`, in the order `--help` lists them. */
export const commands: Command[] = [doctorCommand, sandboxCommand];
