import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../src/config/index.js';
import { createDocker, ensureSandboxImage, type BaseStrategy } from '../../app/sandbox-kit.js';

export const sandboxCommand: Command = {
  name: 'sandbox',
  usage: `Usage: threadlab sandbox build [--force] [--base auto|registry|debootstrap]

Builds the container image user code runs in (Debian trixie, Python 3 and the data stack) from
sandbox/image, tagged with a hash of that definition; an unchanged definition is not rebuilt.
  --force            rebuild even if the image exists
  --base STRATEGY    where the Debian base comes from (default THREADLAB_SANDBOX_BASE, auto):
                     registry = debian:trixie-slim; debootstrap = built locally from apt's mirror
                     (root on Debian/Ubuntu, no registry needed); auto = a local debian:trixie-slim,
                     else debootstrap when possible, else the registry`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { force: { type: 'boolean' }, base: { type: 'string' } }, 'sandbox');
    if (values.help || positionals[0] !== 'build') {
      io.out(`${this.usage}\n`);
      return values.help ? 0 : 2;
    }
    const config = loadConfig(io.env);
    const base = (values.base ?? config.sandbox.base) as BaseStrategy;
    if (!['auto', 'registry', 'debootstrap'].includes(base)) {
      io.err(`--base: expected auto, registry or debootstrap (got "${base}")\n`);
      return 2;
    }
    const docker = createDocker(config.sandbox.dockerHost);
    const { image, built } = await ensureSandboxImage({
      docker,
      base,
      force: Boolean(values.force),
      onProgress: (line) => io.err(`${line}\n`),
      ...(config.sandbox.image ? { tag: config.sandbox.image } : {}),
    });
    io.out(built ? `Built ${image}\n` : `${image} is up to date (use --force to rebuild)\n`);
    return 0;
  },
};
