import type { Language } from '../domain/execution.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { Turn, TurnRun } from './turn.js';
import { isInstalledPackageFile } from '../domain/file-names.js';

/** One run of code in the turn's sandbox session: what is its own beside the turn. */
export interface RunStepOptions {
  sandbox: Sandbox;
  turn: Turn;
  language: Language;
  code: string;
  round: number;
  timeoutMs: number;
}

/**
 * Runs code and reports progress: `code` before, `output` and `display` while it runs (or after it,
 * when the sandbox does not stream), then `file` per artifact and `run_finished`. Errors in the code
 * are data in the result; a thrown error here is a sandbox failure and propagates.
 */
export async function runStep(options: RunStepOptions): Promise<TurnRun> {
  const { language, code, turn } = options;
  const { emit } = turn;
  emit({ type: 'code', round: options.round, language, code });
  let streamed = { stdout: false, stderr: false, display: false };
  const result = await options.sandbox.run(turn.threadKey, {
    language,
    code,
    timeoutMs: options.timeoutMs,
    signal: turn.signal,
    onStdout: (text) => {
      streamed = { ...streamed, stdout: true };
      emit({ type: 'output', stream: 'stdout', text });
    },
    onStderr: (text) => {
      streamed = { ...streamed, stderr: true };
      emit({ type: 'output', stream: 'stderr', text });
    },
    onDisplay: (display) => {
      streamed = { ...streamed, display: true };
      emit({ type: 'display', display });
    },
  });
  if (!streamed.stdout && result.stdout) emit({ type: 'output', stream: 'stdout', text: result.stdout });
  if (!streamed.stderr && result.stderr) emit({ type: 'output', stream: 'stderr', text: result.stderr });
  if (!streamed.display) for (const display of result.displays) emit({ type: 'display', display });
  for (const artifact of result.artifacts) if (!isInstalledPackageFile(artifact.path)) emit({ type: 'file', artifact });
  emit({ type: 'run_finished', status: result.status, durationMs: result.durationMs });
  return { language, code, result };
}
