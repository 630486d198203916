import { join } from 'node:path';

/**
 * What lives where in THREADLAB_DATA_DIR: the one spelling of the data directory's layout. Every reader and
 * writer of these paths asks here (docs/administering.md describes the same tree for operators).
 */
export interface DataDirLayout {
  /** The audit trail when THREADLAB_AUDIT_LOG names no file of its own (rotated beside it). */
  audit: string;
  /** `threadlab purge`'s marks, which running processes honour before they answer from memory. */
  purgeMarks: string;
  /** Who wrote in which thread (`<thread hash>.json` each), for `purge --user` and idle purges. */
  participants: string;
  /** The web chat's threads, messages and blobs. */
  webChat: string;
  /** Host copies of each thread's sandbox files, one directory per thread hash, its saved variables inside. */
  sandboxFiles: string;
  /** What the warm pool learned about demand, read back at start. */
  poolDemand: string;
  /** The note that a Slack app still has the retired assistant view (shown by `doctor` until it is gone). */
  slackAssistantViewNote: string;
  /** The CLI daemon's socket, its log, the lock that lets one start at a time, and where `chat` stages uploads. */
  cliSocket: string;
  daemonLog: string;
  daemonStartLock: string;
  cliStaging: string;
}

export function dataDirLayout(dataDir: string): DataDirLayout {
  return {
    audit: join(dataDir, 'audit.jsonl'),
    purgeMarks: join(dataDir, 'purged'),
    participants: join(dataDir, 'retention', 'threads'),
    webChat: join(dataDir, 'web'),
    sandboxFiles: join(dataDir, 'sandbox-files'),
    poolDemand: join(dataDir, 'sandbox-pool', 'demand.json'),
    slackAssistantViewNote: join(dataDir, 'slack-assistant-view.json'),
    cliSocket: join(dataDir, 'cli.sock'),
    daemonLog: join(dataDir, 'daemon.log'),
    daemonStartLock: join(dataDir, 'daemon.start.lock'),
    cliStaging: join(dataDir, 'cli-staging'),
  };
}
