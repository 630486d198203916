import type { FakeSlackState } from './state.js';

type Args = Record<string, unknown>;
type Result = Record<string, unknown>;

/** Slack's limits on these methods: at most 4 suggested prompts, 10 loading messages, 12,000 chars of markdown. */
const MAX_PROMPTS = 4;
const MAX_LOADING_MESSAGES = 10;
const MAX_MARKDOWN_CHARS = 12_000;
const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);
/** agents.sessions.setStatus's acceptable values (its reference page; @slack/web-api AgentsSessionsSetStatusArguments). */
const SESSION_STATUSES = new Set(['active', 'processing', 'suspended', 'closed']);

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The assistant and streaming methods, answered as Slack does: `assistant.threads.setStatus` /
 * `setSuggestedPrompts` / `setTitle` and `chat.startStream` / `appendStream` / `stopStream`. A
 * stream is a message of the fake (so `conversations.replies` sees it) with its chunks recorded in
 * order; appending to a stopped stream answers `message_not_in_streaming_state`, as Slack does.
 * Returns undefined for other methods.
 */
export function handleAssistantMethod(
  state: FakeSlackState,
  ids: { botUserId: string; botId: string },
  method: string,
  args: Args,
): Result | undefined {
  switch (method) {
    case 'assistant.threads.setStatus': {
      if (!args.channel_id || !args.thread_ts || typeof args.status !== 'string')
        return { ok: false, error: 'invalid_arguments' };
      const loading = args.loading_messages;
      if (Array.isArray(loading) && loading.length > MAX_LOADING_MESSAGES)
        return { ok: false, error: 'invalid_arguments' };
      state.assistantStatuses.push({
        channel: str(args.channel_id),
        threadTs: str(args.thread_ts),
        status: args.status,
      });
      return { ok: true };
    }
    case 'agents.sessions.setStatus': {
      // Slack's "Agent sessions" guide (https://docs.slack.dev/ai/agent-sessions/) and the method's reference: setStatus
      // creates the session if needed, thread-based in a channel or DM (thread_ts required there); only agent apps
      // have sessions.
      if (state.appView !== 'agent_view') return { ok: false, error: 'unknown_method' };
      if (!SESSION_STATUSES.has(str(args.status)) || !args.channel_id || !args.thread_ts)
        return { ok: false, error: 'invalid_arguments' };
      const key = `${str(args.channel_id)}:${str(args.thread_ts)}`;
      const session = state.agentSessions.get(key) ?? {
        statuses: [],
        ...(args.initiator_user_id ? { initiator: str(args.initiator_user_id) } : {}),
      };
      session.statuses.push(str(args.status));
      state.agentSessions.set(key, session);
      return { ok: true, status: str(args.status) };
    }
    case 'assistant.threads.setSuggestedPrompts': {
      const prompts = args.prompts;
      if (!args.channel_id || !Array.isArray(prompts) || prompts.length === 0 || prompts.length > MAX_PROMPTS)
        return { ok: false, error: 'invalid_arguments' };
      const valid = prompts.every(
        (p) => typeof p === 'object' && p !== null && typeof p.title === 'string' && typeof p.message === 'string',
      );
      if (!valid) return { ok: false, error: 'invalid_arguments' };
      // Slack's reference of the method (https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts/):
      // with a thread_ts, the call for an agent app silently fails.
      if (state.appView === 'agent_view' && args.thread_ts) return { ok: true };
      state.suggestedPrompts.push({
        channel: str(args.channel_id),
        threadTs: str(args.thread_ts),
        title: str(args.title),
        prompts: prompts as { title: string; message: string }[],
      });
      return { ok: true };
    }
    case 'assistant.threads.setTitle':
      return args.channel_id && args.thread_ts && args.title ? { ok: true } : { ok: false, error: 'invalid_arguments' };
    case 'chat.startStream':
      return startStream(state, ids, args);
    case 'chat.appendStream':
    case 'chat.stopStream':
      return continueStream(state, method, args);
    default:
      return undefined;
  }
}

function startStream(state: FakeSlackState, ids: { botUserId: string; botId: string }, args: Args): Result {
  const channel = str(args.channel);
  if (!channel) return { ok: false, error: 'channel_not_found' };
  if (!args.thread_ts) return { ok: false, error: 'invalid_arguments' };
  // Outside a DM Slack must know whom the stream is for.
  if (!channel.startsWith('D') && (!args.recipient_user_id || !args.recipient_team_id))
    return { ok: false, error: 'invalid_arguments' };
  const chunks = checkChunks(args, { required: true });
  if (typeof chunks === 'string') return { ok: false, error: chunks };
  const ts = state.nextTs();
  const threadTs = str(args.thread_ts);
  state.messages.push({ channel, ts, thread_ts: threadTs, text: '', blocks: [], deleted: false, updates: 0 });
  state.streams.push({
    channel,
    ts,
    threadTs,
    recipientUserId: str(args.recipient_user_id) || undefined,
    recipientTeamId: str(args.recipient_team_id) || undefined,
    taskDisplayMode: str(args.task_display_mode) || 'timeline',
    chunks: [...chunks],
    streaming: true,
  });
  return { ok: true, channel, ts, user: ids.botUserId };
}

function continueStream(state: FakeSlackState, method: string, args: Args): Result {
  const stream = state.streams.find((s) => s.channel === args.channel && s.ts === args.ts);
  if (!stream) return { ok: false, error: args.channel ? 'message_not_found' : 'channel_not_found' };
  if (!stream.streaming) return { ok: false, error: 'message_not_in_streaming_state' };
  const chunks = checkChunks(args, { required: method === 'chat.appendStream' });
  if (typeof chunks === 'string') return { ok: false, error: chunks };
  stream.chunks.push(...chunks);
  if (method === 'chat.appendStream') return { ok: true, channel: stream.channel, ts: stream.ts };
  stream.streaming = false;
  const text = stream.chunks
    .filter((c) => c.type === 'markdown_text')
    .map((c) => str(c.text))
    .join('');
  const message = state.messages.find((m) => m.channel === stream.channel && m.ts === stream.ts);
  if (message) message.text = text;
  return {
    ok: true,
    channel: stream.channel,
    ts: stream.ts,
    message: {
      type: 'message',
      subtype: 'bot_message',
      text,
      ts: stream.ts,
      thread_ts: stream.threadTs,
      streaming_state: 'completed',
    },
  };
}

/** The chunks of a call (and `markdown_text` as one more), or the error Slack gives for bad ones. */
function checkChunks(args: Args, options: { required?: boolean } = {}): Record<string, unknown>[] | string {
  const out: Record<string, unknown>[] = [];
  const raw = args.chunks;
  if (raw !== undefined) {
    if (!Array.isArray(raw)) return 'invalid_chunks';
    for (const c of raw as unknown[]) {
      if (typeof c !== 'object' || c === null) return 'invalid_chunks';
      const chunk = c as Record<string, unknown>;
      if (chunk.type === 'task_update') {
        if (typeof chunk.id !== 'string' || typeof chunk.title !== 'string' || !TASK_STATUSES.has(str(chunk.status)))
          return 'invalid_chunks';
      } else if (chunk.type === 'markdown_text' || chunk.type === 'plan_update') {
        if (typeof (chunk.text ?? chunk.title) !== 'string') return 'invalid_chunks';
      } else if (chunk.type !== 'blocks') return 'invalid_chunks';
      out.push(chunk);
    }
  }
  if (typeof args.markdown_text === 'string') {
    if (args.markdown_text.length > MAX_MARKDOWN_CHARS) return 'msg_too_long';
    out.push({ type: 'markdown_text', text: args.markdown_text });
  }
  if (options.required && out.length === 0) return 'invalid_arguments';
  return out;
}
