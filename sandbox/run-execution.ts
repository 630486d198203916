import type { Display, ExecutionResult, KillReason } from '../src/domain/execution.js';
import { ThreadlabError } from '../src/domain/errors.js';
import type { RunRequest } from '../src/ports/sandbox.js';
import type { LiveContainer } from './live-container.js';
import type { FinalFrame, ResultFrame, StreamFrame } from './runner-protocol.js';

export interface ExecuteOptions {
  live: LiveContainer;
  request: RunRequest;
  timeoutMs: number;
  graceMs: number;
  outputBytes: number;
  maxFileBytes: number;
  /** Total of the files one run brings back (THREADLAB_MAX_RUN_FILES_MB). */
  maxRunFilesBytes: number;
  /** The container runs under gVisor: a Go panic's status there is the Sentry's, not the interpreter's. */
  underGvisor?: boolean;
}

/** A finished run, plus what the driver needs to keep the session's files in step. */
export interface RunOutcome {
  result: ExecutionResult;
  /** Paths deleted by the run (for the file mirror). */
  deleted: string[];
  /** The container was killed or died: the session must get a new one. */
  lost: boolean;
  /** Files the runner did not bring back beyond those listed in `result.skippedArtifacts`. */
  skippedMore?: number;
}

/** Displays kept per run, and their total size in characters (base64 PNGs included). */
export const MAX_DISPLAYS = 100;
export const MAX_DISPLAY_CHARS = 48 * 1024 * 1024;

/** Why a run was killed, as its result says it (shared with the test fake, so both say the same). */
export const KILL_TEXT: Readonly<Record<KillReason, string>> = {
  timeout: 'the code did not stop when interrupted at its time limit, so its container was killed',
  cancelled: 'the run was stopped and did not yield, so its container was killed',
  memory: 'the code ran out of memory (THREADLAB_SANDBOX_MEMORY_MB) and its container was killed',
  crash: 'the interpreter process exited',
};

/** The status a Go program exits with when it panics: under runsc, gVisor's kernel (the Sentry) stopped. */
const GO_PANIC_STATUS = 2;

/** What a container's exit with `status` says, neither killed by the bot nor for memory. */
export function crashText(status: number, underGvisor: boolean): string {
  return underGvisor && status === GO_PANIC_STATUS
    ? `the sandbox's gVisor kernel stopped (status ${status}), most often because the code started processes without end and gVisor ran out of the host tasks it may have (THREADLAB_SANDBOX_PIDS); the next run starts in a new sandbox, with the thread's files`
    : `${KILL_TEXT.crash} (status ${status})`;
}

/**
 * How long after the grace period the bot waits for the supervisor, which kills and replaces a kernel that
 * ignores an interrupt at `graceMs` itself, before it kills the whole container (a supervisor that does not
 * answer at all).
 */
export const SUPERVISOR_SLACK_MS = 5000;

/** Why a kernel was restarted, as a result's kill reason; an unresponsive kernel was interrupted by `by`. */
function restartKillReason(cause: 'crash' | 'memory' | 'unresponsive', by: KillReason | undefined): KillReason {
  if (cause === 'unresponsive') return by ?? 'timeout';
  return cause;
}

/** Keeps the streamed text up to a cap, for results of runs whose runner never answered. */
class StreamTail {
  text = '';
  add(chunk: string, capChars: number): void {
    if (this.text.length < capChars) this.text += chunk.slice(0, capChars - this.text.length);
  }
}

/**
 * Runs one request: interrupts at the deadline or on abort, kills the container if the code does
 * not yield within the grace period, and turns OOM kills and crashes into a `killed` result.
 */
export async function executeRun(options: ExecuteOptions): Promise<RunOutcome> {
  const { live, request } = options;
  const started = Date.now();
  const displays: Display[] = [];
  const stdout = new StreamTail();
  const stderr = new StreamTail();
  let interruptedBy: 'timeout' | 'cancelled' | undefined;
  let killedBy: KillReason | undefined;
  let graceTimer: NodeJS.Timeout | undefined;

  let sent = false;
  const interrupt = (reason: 'timeout' | 'cancelled') => {
    if (interruptedBy) return;
    interruptedBy = reason;
    if (sent) live.connection.interrupt();
    graceTimer = setTimeout(() => {
      killedBy = reason;
      void live.kill();
    }, options.graceMs + SUPERVISOR_SLACK_MS);
  };
  const deadline = setTimeout(() => interrupt('timeout'), options.timeoutMs);
  const onAbort = () => interrupt('cancelled');
  request.signal?.addEventListener('abort', onAbort, { once: true });
  if (request.signal?.aborted) onAbort();

  // The supervisor caps what it streams, but it relays what the user's kernel claims: cap again here.
  let streamedChars = 0;
  let displayChars = 0;
  let droppedDisplays = 0;
  const onFrame = (frame: StreamFrame) => {
    if (frame.type === 'stdout' || frame.type === 'stderr') {
      streamedChars += frame.text.length;
      if (streamedChars > 4 * options.outputBytes) return;
      (frame.type === 'stdout' ? stdout : stderr).add(frame.text, options.outputBytes);
      (frame.type === 'stdout' ? request.onStdout : request.onStderr)?.(frame.text);
      return;
    }
    if (frame.type !== 'display') return; // a run streams no file chunks; one that came is not the run's
    const size = Object.values(frame.data).reduce((n, v) => n + v.length, 0);
    if (displays.length >= MAX_DISPLAYS || displayChars + size > MAX_DISPLAY_CHARS) {
      droppedDisplays += 1;
      return;
    }
    displayChars += size;
    const display: Display = frame.meta ? { data: frame.data, meta: frame.meta } : { data: frame.data };
    displays.push(display);
    request.onDisplay?.(display);
  };

  let frame: FinalFrame | undefined;
  try {
    frame = await live.connection.request(
      {
        op: 'run',
        language: request.language,
        code: request.code,
        ...(request.internal ? { internal: true } : {}),
        timeoutMs: options.timeoutMs,
        graceMs: options.graceMs,
        outputBytes: options.outputBytes,
        maxFileBytes: options.maxFileBytes,
        maxRunFilesBytes: options.maxRunFilesBytes,
      },
      onFrame,
      () => {
        sent = true;
        if (interruptedBy) live.connection.interrupt();
      },
    );
  } catch {
    frame = undefined; // the container went away; why is decided below
  } finally {
    clearTimeout(deadline);
    clearTimeout(graceTimer);
    request.signal?.removeEventListener('abort', onAbort);
  }
  const durationMs = Date.now() - started;

  if (frame?.type === 'result') {
    const result = fromResultFrame(frame, displays, interruptedBy, options.timeoutMs);
    if (droppedDisplays > 0) {
      result.stderr += `\n[threadlab: ${droppedDisplays} more displays were dropped (at most ${MAX_DISPLAYS} per run)]\n`;
    }
    return { result, deleted: frame.deleted, lost: false, skippedMore: frame.skippedMore ?? 0 };
  }
  if (frame && frame.type === 'error' && interruptedBy) {
    // The interrupt landed between the user's code and the answer: the interpreter is intact, and
    // the run still ends the way it was asked to (a user's stop is a stop, not a timeout).
    const result = baseResult('timeout', stdout.text, stderr.text, displays, durationMs);
    result.interruptedBy = interruptedBy;
    result.error = {
      name: 'KeyboardInterrupt',
      value: interruptionText(interruptedBy, options.timeoutMs),
      traceback: '',
    };
    return { result, deleted: [], lost: false };
  }
  if (frame) {
    const detail = frame.type === 'error' ? `: ${frame.message}` : '';
    throw new ThreadlabError('sandbox_protocol', `The sandbox runner answered a run with ${frame.type}${detail}.`);
  }

  let reason: string;
  if (killedBy) {
    reason = KILL_TEXT[killedBy];
  } else {
    let exit = await waitForExit(live);
    if (!exit.oomKilled && exit.exitCode === 137) {
      // SIGKILLed: the OOM event may be recorded a moment after the exit.
      await new Promise((resolve) => setTimeout(resolve, 250));
      exit = await live.exitState();
    }
    killedBy = exit.oomKilled ? 'memory' : 'crash';
    reason =
      killedBy === 'crash' && exit.exitCode !== undefined
        ? crashText(exit.exitCode, options.underGvisor ?? false)
        : KILL_TEXT[killedBy];
  }
  const result = baseResult('killed', stdout.text, stderr.text, displays, durationMs);
  result.killReason = killedBy;
  result.stateReset = { reason };
  result.error = { name: 'SandboxKilled', value: reason, traceback: '' };
  return { result, deleted: [], lost: true };
}

async function waitForExit(live: LiveContainer): Promise<{ oomKilled: boolean; exitCode: number | undefined }> {
  // The engine records OOMKilled a moment after the process dies.
  for (let i = 0; i < 20; i++) {
    const exit = await live.exitState();
    if (exit.exitCode !== undefined) return exit;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return live.exitState();
}

/** What an interrupted run's error says: a user's stop, or the deadline with the option to raise it. */
export function interruptionText(by: 'timeout' | 'cancelled', timeoutMs: number): string {
  return by === 'cancelled'
    ? 'The run was stopped by the user; variables are kept.'
    : `The run exceeded its time limit of ${timeoutMs} ms and was interrupted; variables are kept. Set THREADLAB_SANDBOX_TIMEOUT_MS to raise the limit.`;
}

function baseResult(
  status: ExecutionResult['status'],
  stdout: string,
  stderr: string,
  displays: Display[],
  durationMs: number,
): ExecutionResult {
  return { status, stdout, stderr, displays, artifacts: [], durationMs, executionCount: 0 };
}

function fromResultFrame(
  frame: ResultFrame,
  displays: Display[],
  interruptedBy: 'timeout' | 'cancelled' | undefined,
  timeoutMs: number,
): ExecutionResult {
  const status = frame.status === 'interrupted' ? 'timeout' : frame.status;
  const restart = frame.kernelRestart;
  const result: ExecutionResult = {
    status,
    stdout: frame.stdout,
    stderr: frame.stderr,
    displays,
    artifacts: frame.artifacts,
    durationMs: Math.round(frame.durationMs),
    executionCount: frame.executionCount,
  };
  if (frame.error) result.error = frame.error;
  if (frame.stoppedProcesses) result.stoppedProcesses = frame.stoppedProcesses;
  if (restart) result.stateReset = { reason: restart.detail };
  if (status === 'killed') {
    // The kernel died during the run; the supervisor started a new one in the same container.
    const detail = restart?.detail ?? KILL_TEXT.crash;
    result.killReason = restartKillReason(restart?.cause ?? 'crash', interruptedBy);
    result.stateReset = { reason: detail };
    result.error = { name: 'SandboxKilled', value: detail, traceback: '' };
    return result;
  }
  if (status === 'timeout') {
    const value = interruptionText(interruptedBy ?? 'timeout', timeoutMs);
    result.error = { name: frame.error?.name ?? 'KeyboardInterrupt', value, traceback: frame.error?.traceback ?? '' };
    result.interruptedBy = interruptedBy ?? 'timeout';
  }
  if (frame.truncated) result.truncated = frame.truncated;
  if (frame.skippedArtifacts?.length) result.skippedArtifacts = frame.skippedArtifacts;
  return result;
}
