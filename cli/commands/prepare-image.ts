import type { Config } from '../../src/config/index.js';
import type { CliIo } from '../args.js';
import { createDocker, ensureSandboxImage } from '../../app/sandbox-kit.js';

/** Builds the sandbox image in the foreground (with progress) when the configured one is missing. */
export async function prepareImage(config: Config, io: CliIo): Promise<void> {
  if (config.sandbox.image) return;
  await ensureSandboxImage({
    docker: createDocker(config.sandbox.dockerHost),
    base: config.sandbox.base,
    onProgress: (line) => io.err(`[sandbox image] ${line}\n`),
  });
}
