import type { Logger } from '../../src/logger.js';

/**
 * Slack's answers that mean the app or workspace cannot use the assistant surfaces at all (the method
 * is not there, the token lacks the scope, the feature is off): decided once per workspace.
 */
const WORKSPACE_LACKS = new Set([
  'unknown_method',
  'missing_scope',
  'not_allowed',
  'not_allowed_token_type',
  'method_deprecated',
  'feature_not_enabled',
]);

export interface SurfaceSupportOptions {
  logger: Logger;
  /** Workspaces and threads remembered; the oldest is forgotten past this. @defaultValue 10000 */
  maxEntries?: number;
  /** What is refused and what takes its place, for the log line. @defaultValue the assistant surfaces, the status message */
  words?: { surface: string; instead: string };
}

/**
 * Where the assistant surfaces (status, suggested prompts, native streaming) were refused, so each
 * job does not try them again: a workspace-level refusal turns them off for the workspace, any other
 * refusal (not an assistant thread, channel gone) for that thread only. Remembered while the process
 * runs, bounded; each decision is logged once.
 */
export class SurfaceSupport {
  private readonly workspaces = new Map<string, string>();
  private readonly threads = new Map<string, string>();
  private readonly maxEntries: number;

  constructor(private readonly options: SurfaceSupportOptions) {
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** Whether a job in this workspace and thread should try the assistant surfaces. */
  usable(workspace: string, threadKey: string): boolean {
    return !this.workspaces.has(workspace) && !this.threads.has(threadKey);
  }

  /** Records Slack's refusal of `method` (its `error` code) and logs the decision. */
  refused(input: { workspace: string; threadKey: string; method: string; error: string | undefined }): void {
    const error = input.error ?? 'unknown';
    const wide = WORKSPACE_LACKS.has(error);
    const [map, key] = wide ? [this.workspaces, input.workspace] : [this.threads, input.threadKey];
    if (map.has(key)) return;
    map.set(key, error);
    if (map.size > this.maxEntries) map.delete(map.keys().next().value!);
    const { surface, instead } = this.options.words ?? {
      surface: 'assistant surfaces',
      instead: 'the updated status message',
    };
    this.options.logger.info(
      {
        workspace: input.workspace,
        thread: input.threadKey,
        method: input.method,
        error,
        scope: wide ? 'workspace' : 'thread',
      },
      `slack ${surface} ${wide ? 'unavailable in this workspace' : 'refused in this thread'}; using ${instead}`,
    );
  }

  /** How many workspaces and threads are remembered (for tests of the bound). */
  get size(): { workspaces: number; threads: number } {
    return { workspaces: this.workspaces.size, threads: this.threads.size };
  }
}

/** Slack's error code of a failed Web API call (`err.data.error`), if any. */
export function slackErrorCode(err: unknown): string | undefined {
  const code = (err as { data?: { error?: unknown } } | undefined)?.data?.error;
  return typeof code === 'string' ? code : undefined;
}
