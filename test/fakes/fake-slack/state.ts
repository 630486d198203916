/** What the fake remembers, for tests to assert on. */
export interface FakeSlackCall {
  method: string;
  args: Record<string, unknown>;
  /** The bearer token sent, if any. */
  token: string | undefined;
  /** HTTP status answered (429 when scripted). */
  status: number;
  atMs: number;
}

export interface FakeSlackMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks: unknown[];
  deleted: boolean;
  updates: number;
}

export interface FakeSlackUpload {
  fileId: string;
  filename: string;
  length: number;
  bytes: Buffer | undefined;
  title?: string;
  altText?: string;
  snippetType?: string;
  /** Set once `files.completeUploadExternal` shared it. */
  channelId?: string;
  threadTs?: string;
  completed: boolean;
}

export interface FakeSlackFile {
  id: string;
  name: string;
  mimetype: string;
  data: Buffer;
  /** Serve an HTML login page with status 200 instead of the bytes, as Slack does without access. */
  serveLoginPage?: boolean;
}

/** A native stream (`chat.startStream` … `chat.stopStream`) with every chunk it received, in order. */
export interface FakeSlackStream {
  channel: string;
  ts: string;
  threadTs: string;
  recipientUserId?: string;
  recipientTeamId?: string;
  taskDisplayMode: string;
  chunks: Record<string, unknown>[];
  /** False once `chat.stopStream` ended it. */
  streaming: boolean;
}

/** What a workspace without a method answers every time: `unknown_method`, or `missing_scope` with `needed`. */
export interface FakeSlackUnsupported {
  error: string;
  needed?: string;
}

/** A scripted failure for the next call(s) of a method. */
export type ScriptedFailure = (
  | { status: 429; retryAfterSec: number }
  /** `delayMs`: answer that much later, as a slow Slack would. */
  | { status: 200; error: string; delayMs?: number }
) & {
  /** Only a call whose arguments match takes this failure (a test's own thread); others pass. @defaultValue any call */
  when?: (args: Record<string, unknown>) => boolean;
};

export class FakeSlackState {
  readonly calls: FakeSlackCall[] = [];
  readonly messages: FakeSlackMessage[] = [];
  readonly uploads: FakeSlackUpload[] = [];
  readonly files = new Map<string, FakeSlackFile>();
  /** Bodies posted to response URLs, by response id. */
  readonly responses: { id: string; body: unknown }[] = [];
  /** Every GET of a hosted file's URL, and whether the bytes (not a login page) were served. */
  readonly downloads: { fileId: string; servedBytes: boolean; atMs: number }[] = [];
  readonly failures = new Map<string, ScriptedFailure[]>();
  readonly streams: FakeSlackStream[] = [];
  readonly assistantStatuses: { channel: string; threadTs: string; status: string }[] = [];
  readonly suggestedPrompts: {
    channel: string;
    threadTs: string;
    title: string;
    prompts: { title: string; message: string }[];
  }[] = [];
  /**
   * How the app is set up: `agent_view` (the Agent messaging experience: the Agent Sessions API answers, and
   * `assistant.threads.setSuggestedPrompts` with a `thread_ts` answers ok but sets nothing, as Slack's reference of
   * the method warns) or the retiring `assistant_view` (no agent sessions here: `unknown_method`, since the stored
   * docs do not say what Slack answers such an app). @defaultValue 'assistant_view'
   */
  appView: 'agent_view' | 'assistant_view' = 'assistant_view';
  /** Agent sessions by `channel:thread_ts`, with every status set, in order (`agents.sessions.setStatus`). */
  readonly agentSessions = new Map<string, { statuses: string[]; initiator?: string }>();
  /** Channels of the workspace for `conversations.info`: id → name and whether the bot is a member. */
  readonly channels = new Map<string, { name: string; isMember: boolean; isPrivate?: boolean }>();
  /** Methods this workspace does not offer, by name (see {@link FakeSlackUnsupported}). */
  readonly unsupported = new Map<string, FakeSlackUnsupported>();
  /**
   * Channels the bot is not a member of (a private channel it was never invited to): posting there, ephemeral
   * notices included, answers `not_in_channel`, as Slack does.
   */
  readonly channelsWithoutBot = new Set<string>();
  /** User groups of the workspace (`usergroups.users.list`): group id → member user ids. */
  readonly userGroups = new Map<string, string[]>();
  /** Time zones of users (`users.info` `tz`), by user id; a user not listed has `tz` absent, as bots do. */
  readonly userTimeZones = new Map<string, string>();
  private tsCounter = 0;
  private fileCounter = 0;

  nextTs(): string {
    this.tsCounter += 1;
    return `${Math.floor(Date.now() / 1000)}.${String(500000 + this.tsCounter).padStart(6, '0')}`;
  }

  nextFileId(): string {
    this.fileCounter += 1;
    return `F0UP${String(this.fileCounter).padStart(5, '0')}`;
  }

  takeFailure(method: string, args: Record<string, unknown>): ScriptedFailure | undefined {
    const queue = this.failures.get(method) ?? [];
    const at = queue.findIndex((f) => !f.when || f.when(args));
    return at < 0 ? undefined : queue.splice(at, 1)[0];
  }
}
