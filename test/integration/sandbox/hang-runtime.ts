import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { registeredRuntimes } from '../../../sandbox/runtime.js';
import { docker } from './helpers.js';

const run = promisify(execFile);

/** The stand-in runtime's name in the engine, and where its script lives. */
export const HANG_RUNTIME = 'probe41-hang';
const SCRIPT = '/usr/local/libexec/threadlab-test/probe41-hang';
const DAEMON_JSON = '/etc/docker/daemon.json';

/**
 * A stand-in OCI runtime whose `create` never returns, as gVisor's KVM platform's does on a host whose /dev/kvm
 * cannot run its guest (`runsc create` waits while runsc-sandbox spins in KVM_RUN): `docker start` hangs. It sleeps
 * rather than spin, to spare the shared machine's CPU; the shell stays alive with the container id in its command
 * line, as runsc's processes have it. Every other subcommand (state, kill, delete) is runc's.
 */
const SCRIPT_TEXT = `#!/bin/sh
# Threadlab's test stand-in for a runtime that never becomes ready (test/integration/sandbox/hang-runtime.ts).
for arg in "$@"; do
  if [ "$arg" = create ]; then
    while :; do sleep 1; done
  fi
done
exec runc "$@"
`;

/**
 * Registers the stand-in with the local engine when it is not yet (root, no DOCKER_HOST): its script, then an entry
 * added to daemon.json's "runtimes" (everything else kept) and dockerd reloaded with SIGHUP, as
 * scripts/ensure-docker.sh registers runsc. Resolves to why it cannot, or undefined once the engine lists it.
 */
export async function ensureHangRuntime(): Promise<string | undefined> {
  if ((await registeredRuntimes(docker)).includes(HANG_RUNTIME)) return undefined;
  if (process.getuid?.() !== 0) return 'registering a Docker runtime needs root';
  if (process.env.DOCKER_HOST) return 'the engine is at DOCKER_HOST, not on this machine';
  await mkdir(dirname(SCRIPT), { recursive: true });
  await writeFile(SCRIPT, SCRIPT_TEXT);
  await chmod(SCRIPT, 0o755);
  const text = await readFile(DAEMON_JSON, 'utf8').catch(() => '');
  const config = (text.trim() ? JSON.parse(text) : {}) as { runtimes?: Record<string, unknown> };
  config.runtimes = { ...config.runtimes, [HANG_RUNTIME]: { path: SCRIPT } };
  await writeFile(`${DAEMON_JSON}.probe41-tmp`, `${JSON.stringify(config, null, 2)}\n`);
  await rename(`${DAEMON_JSON}.probe41-tmp`, DAEMON_JSON);
  const { stdout } = await run('pidof', ['dockerd']).catch(() => ({ stdout: '' }));
  const pid = Number(stdout.trim().split(/\s+/)[0]);
  if (!pid) return 'no dockerd on this machine to reload';
  process.kill(pid, 'SIGHUP');
  for (let i = 0; i < 40; i++) {
    if ((await registeredRuntimes(docker)).includes(HANG_RUNTIME)) return undefined;
    await new Promise((r) => setTimeout(r, 250));
  }
  return `dockerd did not list ${HANG_RUNTIME} within 10 s of its reload`;
}

/** Processes of the stand-in still alive on this machine (its script names itself in its command line). */
export async function hangProcesses(): Promise<number[]> {
  const { stdout } = await run('ps', ['-eo', 'pid=,args=']);
  return stdout
    .split('\n')
    .filter((line) => line.includes(SCRIPT))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}
