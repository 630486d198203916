import type { FilePreview } from '../src/domain/execution.js';
import type { RunnerConnection } from './runner-connection.js';

/** How often an interrupt is sent again while a stopped preview has not answered (it may still be queued). */
const REINTERRUPT_MS = 500;

export interface PreviewRequestOptions {
  connection: RunnerConnection;
  /** Kills the container; used only when the runner does not answer past its own budget. */
  kill: () => Promise<void>;
  paths: string[];
  /** The runner's budget for all files together. */
  timeoutMs: number;
  /** Extra time the runner gets after its budget before the container is killed. */
  graceMs: number;
  /** Stop: the runner kills the preview in flight and answers with every file marked skipped. */
  signal?: AbortSignal;
}

/**
 * Asks the runner for previews within a time budget. The runner enforces the budget itself (each file is read
 * in a child process it kills at the deadline); an abort sends interrupts until it answers. Should the runner
 * not answer by budget + grace, the container is killed and every file is reported skipped: a preview never
 * holds a worker longer than that, and the files stay in the thread's mirror.
 */
export async function requestPreviews(options: PreviewRequestOptions): Promise<FilePreview[]> {
  const { connection, paths, signal } = options;
  let sent = false;
  let repeat: NodeJS.Timeout | undefined;
  let killed = false;
  const onAbort = () => {
    if (sent) connection.interrupt();
    repeat ??= setInterval(() => sent && connection.interrupt(), REINTERRUPT_MS);
  };
  const backstop = setTimeout(() => {
    killed = true;
    void options.kill();
  }, options.timeoutMs + options.graceMs);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  try {
    const frame = await connection.request({ op: 'preview', paths, timeoutMs: options.timeoutMs }, undefined, () => {
      sent = true;
      if (signal?.aborted) connection.interrupt();
    });
    if (frame.type === 'previews') return frame.previews;
    return skippedAll(paths, `the sandbox answered ${frame.type === 'error' ? frame.message : frame.type}`);
  } catch (err) {
    if (!killed) throw err;
    return skippedAll(
      paths,
      `the sandbox did not answer within ${Math.round((options.timeoutMs + options.graceMs) / 1000)} s and was restarted (variables are reset)`,
    );
  } finally {
    clearTimeout(backstop);
    clearInterval(repeat);
    signal?.removeEventListener('abort', onAbort);
  }
}

function skippedAll(paths: string[], why: string): FilePreview[] {
  return paths.map((path) => ({
    path,
    bytes: 0,
    kind: 'binary',
    error: `preview skipped: ${why}; the file is in /mnt/data`,
  }));
}
