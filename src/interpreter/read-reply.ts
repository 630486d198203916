import type { Language } from '../domain/execution.js';
import type { LlmResponse, ToolCall } from '../ports/llm-client.js';
import { canonicalSourceCall, readSourceCall } from './query/source-tools.js';
import { callsFromText } from './text-protocol.js';
import type { ToolProtocol, ToolProtocolChoice } from './tool-protocol.js';
import type { ModelId } from '../domain/model-memory.js';
import { canonicalCall, noteMapped, parseToolCall } from './tools.js';
import type { Turn } from './turn.js';

/**
 * A call under our tool's name: a data source tool's alias (`sql`, `run_sql`…) as list_sources or query_source, and
 * a call that parses as run_code under a name or shape the model was trained on as run_code; as sent otherwise.
 */
export function asOurCall(
  call: ToolCall,
  o: { languages: readonly Language[]; turn: Turn; sourceNames: readonly string[] | undefined },
): ToolCall {
  const source = o.sourceNames ? readSourceCall(call, o.sourceNames) : undefined;
  if (source) return canonicalSourceCall(call, source);
  return asRunCode(call, o.languages, o.turn);
}

function asRunCode(call: ToolCall, languages: readonly Language[], turn: Turn): ToolCall {
  const parsed = parseToolCall(call, languages);
  if (!parsed.ok || !parsed.mapped) return call;
  noteMapped(turn, call, parsed);
  return canonicalCall(call, parsed);
}

/** How a reply asks for code: native calls, or fenced blocks and calls written as text. */
export interface ReadReply {
  handled: ToolProtocol;
  calls: ToolCall[];
  /** The text a user would read: the reply without written calls. */
  prose: string | null;
  /** Tags of blocks in languages the sandbox does not run. */
  other: string[];
}

/**
 * Reads one reply. In the text protocol its blocks and written calls are the calls. In the native protocol
 * a reply without calls is read as text when the model wrote a call as text (the server's tool parser did
 * not match; the pair moves to the text protocol), or when an `auto` pair that never made a native call
 * answers a turn's first round with fenced blocks (run rather than posted unexecuted).
 */
export function readReply(
  response: LlmResponse,
  o: {
    mode: ToolProtocol;
    round: number;
    languages: readonly Language[];
    protocol: ToolProtocolChoice;
    key: ModelId;
    runsSoFar: number;
    /** The data sources the turn may query: sql fences naming one are query_source calls. */
    sourceNames?: readonly string[];
  },
): ReadReply {
  if (o.mode === 'native' && response.toolCalls.length > 0) {
    o.protocol.sawNativeCall(o.key);
    return { handled: 'native', calls: response.toolCalls, prose: response.content, other: [] };
  }
  const found = callsFromText(response.content ?? '', {
    round: o.round,
    languages: o.languages,
    ...(o.sourceNames ? { sourceNames: o.sourceNames } : {}),
  });
  if (o.mode === 'text') return { handled: 'text', calls: found.calls, prose: found.prose, other: found.other };
  if (found.written > 0) {
    // Under THREADLAB_LLM_TOOLS=native the written calls run, and the turn stays native.
    if (o.protocol.setting === 'native')
      return { handled: 'native', calls: found.calls, prose: found.prose, other: [] };
    o.protocol.switchToText(o.key, 'tool call written as text');
    return { handled: 'text', calls: found.calls, prose: found.prose, other: found.other };
  }
  const fencedInstead =
    found.calls.length > 0 &&
    o.runsSoFar === 0 &&
    o.protocol.setting === 'auto' &&
    !o.protocol.hasMadeNativeCalls(o.key);
  if (fencedInstead) {
    o.protocol.sawFencedInsteadOfCall(o.key);
    return { handled: 'text', calls: found.calls, prose: found.prose, other: found.other };
  }
  return { handled: 'native', calls: [], prose: response.content, other: [] };
}
