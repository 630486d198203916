import { freemem, totalmem } from 'node:os';

/**
 * What one pooled sandbox holds once primed with the data stack, with room to spare: measured at 84 MiB under runc
 * and 113 MiB under gVisor (docs/performance.md, note 4: the cgroup's charge of a thread that used pandas).
 */
export const PRIMED_SANDBOX_BYTES = 160 * 1024 * 1024;
/** The host memory the pool never eats into, whatever the demand: the threads' own sandboxes and the bot need it. */
export const MIN_RESERVE_BYTES = 1024 * 1024 * 1024;
/** …and at least this share of the host's memory. */
export const RESERVE_SHARE = 0.25;

export interface HeadroomOptions {
  /** The host's available memory now, in bytes. @defaultValue os.freemem() (on Linux, /proc/meminfo's MemAvailable) */
  freeBytes?: () => number;
  /** The host's memory, in bytes. @defaultValue os.totalmem() */
  totalBytes?: number;
  /** What one more primed sandbox takes. @defaultValue PRIMED_SANDBOX_BYTES */
  perSandboxBytes?: number;
}

/**
 * How many more sandboxes the host's memory has room for now: the pool grows to the demand it saw only while that
 * leaves the reserve (a quarter of the host's memory, at least 1 GiB) free. Read anew before each start, so the
 * memory that started sandboxes took counts as it is taken. Node's os.freemem() is libuv's uv_get_free_memory,
 * which reads MemAvailable on Linux (here it matched /proc/meminfo's MemAvailable, not MemFree).
 */
export function memoryHeadroom(options: HeadroomOptions = {}): () => number {
  const free = options.freeBytes ?? freemem;
  const total = options.totalBytes ?? totalmem();
  const per = Math.max(1, options.perSandboxBytes ?? PRIMED_SANDBOX_BYTES);
  const reserve = Math.max(MIN_RESERVE_BYTES, total * RESERVE_SHARE);
  return () => Math.max(0, Math.floor((free() - reserve) / per));
}
