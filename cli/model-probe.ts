import { isThreadlabError } from '../src/domain/errors.js';
import type { LlmClient, LlmMessage, LlmResponse } from '../src/ports/llm-client.js';
import { codeBlocksOf } from '../src/interpreter/text-protocol.js';
import { toolCallsInText } from '../src/interpreter/text-tool-calls.js';
import type { ToolProtocolSetting } from '../src/interpreter/tool-protocol.js';
import { parseToolCall, RUN_CODE_TOOL, runCodeSpec } from '../src/interpreter/tools.js';

/** How the model's server answered a tool-call round trip. */
export type ToolSupport =
  | { kind: 'native' }
  | { kind: 'refused'; reason: string }
  | { kind: 'written-as-text' }
  | { kind: 'fenced-block' }
  | { kind: 'ignored' };

/** What `threadlab doctor` found the configured model can do. */
export interface ModelProbe {
  /** A plain text round trip worked; when it did not, `failure` says why and nothing else was tried. */
  text: boolean;
  failure?: string;
  textMs?: number;
  tools?: ToolSupport;
  /** A tool result went back and the model answered from it. */
  toolResultRoundTrip?: boolean;
  usage?: boolean;
  images?: 'accepted' | 'refused' | 'off';
  imagesReason?: string;
  reasoning?: boolean;
  /** The protocol `auto` will use for this endpoint and model. */
  protocol: 'native' | 'text';
  /** What the client learned about the server (left-out parameters, auth header…). */
  learned: string[];
}

/** A 1×1 PNG: the smallest image a vision model can be shown. */
const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const SYSTEM: LlmMessage = {
  role: 'system',
  content: 'You are a connectivity check. Follow the instruction exactly and briefly.',
};

const short = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 400);

function toolSupportOf(response: LlmResponse): ToolSupport {
  const native = response.toolCalls.find((c) => c.name === RUN_CODE_TOOL && parseToolCall(c).ok);
  if (native) return { kind: 'native' };
  const content = response.content ?? '';
  if (toolCallsInText(content, [RUN_CODE_TOOL]).calls.length > 0) return { kind: 'written-as-text' };
  if (codeBlocksOf(content, ['python', 'bash']).blocks.length > 0) return { kind: 'fenced-block' };
  return { kind: 'ignored' };
}

/**
 * Probes the configured model as the loop will use it: a text round trip, a tool-call round trip (and a
 * tool result sent back), an image when images are on. Each request is small; failures are data.
 */
export async function probeModel(
  llm: LlmClient,
  options: { setting: ToolProtocolSetting; images: boolean; temperature?: number; signal?: AbortSignal },
): Promise<ModelProbe> {
  const learned = (): string[] => llm.dialectFacts?.() ?? [];
  // Every request carries what the loop's would (its temperature), so the probe meets the same refusals.
  const asLoop = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  };
  const startedMs = Date.now();
  let text: LlmResponse;
  try {
    text = await llm.complete({
      messages: [SYSTEM, { role: 'user', content: 'Reply with the single word: ready' }],
      tools: [],
      ...asLoop,
    });
  } catch (err) {
    return { text: false, failure: short(err), protocol: 'native', learned: learned() };
  }
  const probe: ModelProbe = {
    text: true,
    textMs: Date.now() - startedMs,
    usage: text.usage.promptTokens + text.usage.completionTokens > 0,
    reasoning: Boolean(text.reasoning),
    protocol: 'native',
    learned: [],
  };

  const ask: LlmMessage = {
    role: 'user',
    content: `Call the ${RUN_CODE_TOOL} tool with language "python" and code "print(6 * 7)". Do not answer in text.`,
  };
  try {
    const called = await llm.complete({
      messages: [SYSTEM, ask],
      tools: [runCodeSpec()],
      ...asLoop,
    });
    probe.tools = toolSupportOf(called);
    probe.reasoning ||= Boolean(called.reasoning);
    const call = called.toolCalls[0];
    if (probe.tools.kind === 'native' && call) {
      const back = await llm.complete({
        messages: [
          SYSTEM,
          ask,
          {
            role: 'assistant',
            content: called.content,
            toolCalls: called.toolCalls,
            ...(called.reasoning ? { reasoning: called.reasoning } : {}),
          },
          { role: 'tool', toolCallId: call.id, content: 'status: ok\nstdout:\n42' },
          { role: 'user', content: 'What did it print? Answer with the number only.' },
        ],
        tools: [runCodeSpec()],
        ...asLoop,
      });
      probe.toolResultRoundTrip = back.toolCalls.length > 0 || Boolean(back.content?.trim());
    }
  } catch (err) {
    // Refused tools (llm_tools_unsupported) or a tool round the server could not take: either way not native.
    const reason = isThreadlabError(err) && typeof err.details?.reason === 'string' ? err.details.reason : short(err);
    probe.tools = { kind: 'refused', reason: reason.slice(0, 400) };
  }

  if (!options.images || !llm.acceptsImages) probe.images = 'off';
  else {
    try {
      await llm.complete({
        messages: [
          SYSTEM,
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What colour is this pixel? One word.' },
              { type: 'image', mime: 'image/png', base64: PIXEL_PNG },
            ],
          },
        ],
        tools: [],
        ...asLoop,
      });
      probe.images = 'accepted';
    } catch (err) {
      probe.images = 'refused';
      probe.imagesReason = short(err);
    }
  }
  const kind = probe.tools?.kind;
  probe.protocol = options.setting === 'text' || (options.setting === 'auto' && kind !== 'native') ? 'text' : 'native';
  probe.learned = learned();
  return probe;
}

const TOOLS_TEXT: Record<ToolSupport['kind'], string> = {
  native: 'native tool calls',
  refused: 'refused by the server',
  'written-as-text': "written as text (the server's tool parser does not match this model)",
  'fenced-block': 'ignored: the model wrote a fenced code block instead',
  ignored: 'ignored: the model answered in text',
};

/** The doctor's lines for a probe: what works, and which protocol `auto` (or the setting) will use. */
export function describeProbe(p: ModelProbe, setting: ToolProtocolSetting): string[] {
  if (!p.text) return [`no answer to a text request: ${p.failure ?? 'unknown failure'}`];
  const tools =
    p.tools?.kind === 'refused' ? `refused by the server: ${p.tools.reason}` : TOOLS_TEXT[p.tools?.kind ?? 'ignored'];
  const lines = [
    `text: ok (${((p.textMs ?? 0) / 1000).toFixed(1)} s) · usage: ${p.usage ? 'reported' : 'not reported (estimated)'} · reasoning: ${p.reasoning ? 'sent (kept out of answers)' : 'none seen'} · images: ${p.images === 'refused' ? `refused (${p.imagesReason ?? ''})` : (p.images ?? 'off')}`,
    `tools: ${tools}${p.toolResultRoundTrip === false ? '; the answer after a tool result was empty' : ''}`,
    `protocol: ${p.protocol === 'native' ? 'native tool calls' : 'fenced code blocks (text protocol)'} (THREADLAB_LLM_TOOLS=${setting})`,
  ];
  if (p.learned.length) lines.push(`adapted to the server: ${p.learned.join(', ')}`);
  return lines;
}
