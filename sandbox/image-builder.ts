import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';
import { ThreadlabError } from '../src/domain/errors.js';
import { buildOnce } from './build-lock.js';

/** Folder holding the image definition (Dockerfile, runner). */
export const IMAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'image');
export const IMAGE_REPO = 'threadlab-sandbox';
export const DEBOOTSTRAP_BASE = 'threadlab/base:trixie';
export const REGISTRY_BASE = 'debian:trixie-slim';
/** Label carrying the definition's version; `threadlab doctor` reads it. */
export const VERSION_LABEL = 'dev.threadlab.sandbox.version';

function definitionFiles(dir = IMAGE_DIR): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '__pycache__' || entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...definitionFiles(full));
    else if (entry.isFile()) out.push(relative(IMAGE_DIR, full));
  }
  return out.sort();
}

/**
 * The version of the image definition: a hash of every file in sandbox/image. The image is tagged
 * with it, so an unchanged definition is never rebuilt and a changed one always is.
 */
export function sandboxImageVersion(): string {
  const hash = createHash('sha256');
  for (const file of definitionFiles()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(IMAGE_DIR, file)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 12);
}

/** The tag the current definition builds to, e.g. `threadlab-sandbox:3f2a9c1b7d4e`. */
export function sandboxImageTag(): string {
  return `${IMAGE_REPO}:${sandboxImageVersion()}`;
}

async function imageExists(docker: Docker, tag: string): Promise<boolean> {
  try {
    await docker.getImage(tag).inspect();
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw new ThreadlabError(
      'docker_unreachable',
      `Cannot reach the Docker engine: ${(err as Error).message}. Is dockerd running? Try \`threadlab doctor\`.`,
      { cause: err, isRetryable: true },
    );
  }
}

export type BaseStrategy = 'auto' | 'registry' | 'debootstrap';

export interface EnsureImageOptions {
  docker: Docker;
  /** Where the base comes from. `auto`: a local debian:trixie-slim, else debootstrap when root on Debian, else the registry. @defaultValue 'auto' */
  base?: BaseStrategy;
  /** Rebuild even when the tag exists. @defaultValue false */
  force?: boolean;
  /** Receives build output line by line. */
  onProgress?: (line: string) => void;
  /** Build under this tag instead of {@link sandboxImageTag}. */
  tag?: string;
}

async function chooseBase(docker: Docker, strategy: BaseStrategy): Promise<'registry' | 'debootstrap'> {
  if (strategy !== 'auto') return strategy;
  if (await imageExists(docker, REGISTRY_BASE)) return 'registry';
  if (await imageExists(docker, DEBOOTSTRAP_BASE)) return 'debootstrap';
  const canDebootstrap = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/etc/apt');
  return canDebootstrap ? 'debootstrap' : 'registry';
}

function runScript(script: string, args: string[], onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const relay = (chunk: Buffer) => chunk.toString().split('\n').filter(Boolean).forEach(onLine);
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(
            new ThreadlabError(
              'sandbox_image_missing',
              `Creating the base image failed (exit ${code}); see the lines above.`,
            ),
          ),
    );
  });
}

/**
 * Makes sure the sandbox image of the current definition exists, building it (with visible progress)
 * when it does not. Returns the tag and whether a build happened.
 */
export async function ensureSandboxImage(options: EnsureImageOptions): Promise<{ image: string; built: boolean }> {
  const { docker } = options;
  const tag = options.tag ?? sandboxImageTag();
  const say = options.onProgress ?? (() => {});
  if (!options.force && (await imageExists(docker, tag))) return { image: tag, built: false };
  const outcome = await buildOnce(
    { name: tag, exists: async () => !options.force && (await imageExists(docker, tag)), say },
    () => build(docker, tag, options.base ?? 'auto', say),
  );
  return outcome === 'elsewhere' ? { image: tag, built: false } : outcome;
}

async function build(
  docker: Docker,
  tag: string,
  strategy: BaseStrategy,
  say: (line: string) => void,
): Promise<{ image: string; built: true }> {
  const base = await chooseBase(docker, strategy);
  let baseImage = REGISTRY_BASE;
  if (base === 'debootstrap') {
    baseImage = DEBOOTSTRAP_BASE;
    if (!(await imageExists(docker, DEBOOTSTRAP_BASE))) {
      say(`creating the base image ${DEBOOTSTRAP_BASE} with debootstrap (no registry needed; about 30 s)`);
      await runScript(join(IMAGE_DIR, 'make-base.sh'), [DEBOOTSTRAP_BASE], say);
    }
  }
  say(`building ${tag} from ${baseImage} (Python data stack from Debian packages; about 2 minutes)`);
  const started = Date.now();
  const stream = await docker.buildImage(
    { context: IMAGE_DIR, src: definitionFiles() },
    {
      t: tag,
      buildargs: { BASE_IMAGE: baseImage, THREADLAB_SANDBOX_VERSION: tag.split(':')[1] ?? 'dev' },
      networkmode: 'host',
      rm: true,
      forcerm: true,
      labels: { [VERSION_LABEL]: tag.split(':')[1] ?? 'dev' },
    },
  );
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null, output: Array<{ error?: string }>) => {
        const failure = err?.message ?? output.find((o) => o.error)?.error;
        if (failure)
          reject(new ThreadlabError('sandbox_image_missing', `Building the sandbox image failed: ${failure}`));
        else resolve();
      },
      (event: { stream?: string; status?: string; error?: string }) => {
        if (event.error) return say(`error: ${event.error}`);
        // Step headers, package set-up and apt errors are the progress worth showing; the rest is chatter.
        for (const line of (event.stream ?? event.status ?? '').split('\n')) {
          if (/^Step \d+\/\d+|^Successfully|^E: |^Err:/.test(line)) say(line);
          else if (/^Setting up python3-[a-z]+ /.test(line)) say(`  ${line}`);
        }
      },
    );
  });
  if (!(await imageExists(docker, tag)))
    throw new ThreadlabError('sandbox_image_missing', `The build finished but ${tag} is missing.`);
  say(`built ${tag} in ${Math.round((Date.now() - started) / 1000)} s`);
  return { image: tag, built: true };
}

/** The definition files' total size, for `threadlab doctor`. */
export function definitionSummary(): { files: number; bytes: number } {
  const files = definitionFiles();
  return { files: files.length, bytes: files.reduce((n, f) => n + statSync(join(IMAGE_DIR, f)).size, 0) };
}
