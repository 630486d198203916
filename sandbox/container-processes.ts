import { readdir, readFile } from 'node:fs/promises';

/** How many processes one container's runtime may leave behind before the search stops. */
const MAX_PROCESSES = 64;
/** How many /proc entries are read at most (a host with more processes is searched in part). */
const MAX_SCANNED = 65_536;

/**
 * Ends (SIGKILL) the OCI runtime's own processes of one container on this host: `runsc create`, `runsc-sandbox`
 * (gVisor's kernel), its gofer, or a stand-in runtime's script; each names the container's 64-hex id in its command
 * line. A runtime that hangs while creating the container (gVisor's KVM platform on a host whose /dev/kvm cannot
 * run its guest spins in KVM_RUN inside `runsc create`) holds `docker start` and `docker rm -f` until these end.
 * containerd's shim is left to exit by itself once its runtime has. Finds nothing when the engine is on another
 * host (DOCKER_HOST) or /proc cannot be read. Returns the pids ended.
 */
export async function endRuntimeProcesses(containerId: string): Promise<number[]> {
  if (!/^[0-9a-f]{64}$/.test(containerId)) return [];
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const ended: number[] = [];
  for (const entry of entries.slice(0, MAX_SCANNED)) {
    if (ended.length >= MAX_PROCESSES) break;
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.includes(containerId) || cmdline.includes('containerd-shim')) continue;
    try {
      process.kill(pid, 'SIGKILL');
      ended.push(pid);
    } catch {
      // Gone already, or not ours to end.
    }
  }
  return ended;
}
