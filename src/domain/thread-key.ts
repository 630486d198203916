import { createHash } from 'node:crypto';
/** The chat platforms Threadlab speaks to. `cli` is the `threadlab exec|chat` command line. */
export type Platform = 'slack' | 'discord' | 'web' | 'cli';

/**
 * Where a conversation lives. Every platform maps its own notion of a thread onto these four parts:
 * Slack (team, channel, thread_ts), Discord (guild or "dm", parent channel, thread id), web (local, thread id).
 */
export interface ThreadRef {
  platform: Platform;
  /** Slack team id, Discord guild id (or `dm`), `local` for the web chat and CLI. */
  workspace: string;
  channel: string;
  /** The thread root: Slack's thread_ts, Discord's thread channel id, the web chat's thread id. */
  thread: string;
}

/** An opaque, stable string that names one thread; sessions, sandboxes and queues are keyed by it. */
export type ThreadKey = string & { readonly __brand: 'ThreadKey' };

const enc = (part: string): string => encodeURIComponent(part);

/** Builds the key of a thread. Parts are percent-encoded so `:` inside a part cannot collide. */
export function threadKey(ref: ThreadRef): ThreadKey {
  return [ref.platform, ref.workspace, ref.channel, ref.thread].map(enc).join(':') as ThreadKey;
}

/** Inverse of {@link threadKey}; throws on a string that is not a thread key. */
export function parseThreadKey(key: string): ThreadRef {
  const parts = key.split(':').map(decodeURIComponent);
  if (parts.length !== 4 || !['slack', 'discord', 'web', 'cli'].includes(parts[0]!)) {
    throw new Error(`not a thread key: ${JSON.stringify(key)}`);
  }
  const [platform, workspace, channel, thread] = parts as [Platform, string, string, string];
  return { platform, workspace, channel, thread };
}

/** A thread key for free-form ids given on the command line (`threadlab exec --session KEY`). */
export function cliThreadKey(id: string): ThreadKey {
  return threadKey({ platform: 'cli', workspace: 'local', channel: 'cli', thread: id });
}

/**
 * The 24-hex hash of a thread key that stands for it where the key itself must not appear: the sandbox's
 * container label and data directory, and the `threadHash` of audit lines (so a purge finds them all).
 */
export function threadHash(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 24);
}
