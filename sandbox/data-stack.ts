import type { RunnerConnection } from './runner-connection.js';

/**
 * How long loading the data stack may take before the kernel is interrupted (and replaced if it does not
 * yield): a first import under gVisor on a busy machine takes seconds, never this long.
 */
export const DATA_STACK_TIMEOUT_MS = 20_000;

/** What loading the data stack did: the modules now in the kernel and the time it took, or why it did not. */
export type DataStackOutcome = { loaded: string[]; seconds: number } | { failed: string };

/**
 * Has the kernel import numpy, pandas and pyplot (the runner's `warm` op, sandbox/image/runner/kernel.py).
 * Kernels start without them so that idle sandboxes stay small; this brings them in before a thread's code
 * needs them. Modules already imported cost nothing. A failure in the kernel is data; a protocol failure throws.
 */
export async function loadDataStack(connection: RunnerConnection, graceMs: number): Promise<DataStackOutcome> {
  const frame = await connection.request({ op: 'warm', timeoutMs: DATA_STACK_TIMEOUT_MS, graceMs });
  if (frame.type !== 'state') {
    throw new Error(frame.type === 'error' ? frame.message : `unexpected answer ${frame.type} to warm`);
  }
  if (frame.failed !== undefined) return { failed: frame.failed };
  return { loaded: frame.loaded ?? [], seconds: frame.seconds ?? 0 };
}
