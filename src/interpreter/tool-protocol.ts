import type { Logger } from '../logger.js';

/** `THREADLAB_LLM_TOOLS`: how the model asks for code to run. */
export type ToolProtocolSetting = 'auto' | 'native' | 'text';
export type ToolProtocol = 'native' | 'text';

/** Why `auto` left native tool calls for an endpoint and model. */
export type SwitchReason = 'server refuses tools' | 'tool call written as text' | 'code written as a fenced block';

/** Most endpoint-and-model pairs remembered (a process talks to one or two). */
const MAX_KEYS = 64;

/**
 * Which protocol each endpoint and model gets, decided once and remembered for the process: `native` and
 * `text` as set; `auto` starts native and moves a pair to text when its server refuses tools, or its model
 * writes tool calls as text, or (while it has never made a native call) answers the first round of two turns
 * with unexecuted fenced blocks. A model seen making native calls is not moved by fenced blocks: those are
 * then code it chose to show.
 */
export class ToolProtocolChoice {
  private readonly text = new Map<string, SwitchReason>();
  private readonly nativeSeen = new Set<string>();
  private readonly fencedTurns = new Map<string, number>();

  constructor(
    readonly setting: ToolProtocolSetting,
    private readonly logger?: Logger,
  ) {}

  current(key: string): ToolProtocol {
    if (this.setting !== 'auto') return this.setting;
    return this.text.has(key) ? 'text' : 'native';
  }

  /** The reason a pair uses the text protocol under `auto`, if it does. */
  reasonFor(key: string): SwitchReason | undefined {
    return this.text.get(key);
  }

  /** A native tool call came back: the model can call tools. */
  sawNativeCall(key: string): void {
    if (this.nativeSeen.size < MAX_KEYS || this.nativeSeen.has(key)) this.nativeSeen.add(key);
  }

  hasMadeNativeCalls(key: string): boolean {
    return this.nativeSeen.has(key);
  }

  /**
   * A turn's first answer was an unexecuted fenced block although tools were offered. Its blocks run either
   * way; the pair moves to the text protocol the second time, unless it has made native calls.
   */
  sawFencedInsteadOfCall(key: string): void {
    if (this.setting !== 'auto' || this.nativeSeen.has(key)) return;
    const turns = (this.fencedTurns.get(key) ?? 0) + 1;
    if (this.fencedTurns.size < MAX_KEYS || this.fencedTurns.has(key)) this.fencedTurns.set(key, turns);
    if (turns >= 2) this.switchToText(key, 'code written as a fenced block');
  }

  /** Moves a pair to the text protocol (auto only); returns whether it moved. */
  switchToText(key: string, reason: SwitchReason): boolean {
    if (this.setting !== 'auto' || this.text.has(key)) return false;
    if (this.text.size >= MAX_KEYS) this.text.delete(this.text.keys().next().value!);
    this.text.set(key, reason);
    this.logger?.info({ model: key, reason }, 'model uses the text protocol (fenced code blocks) from now on');
    return true;
  }
}

/** The key of what is learned about a client's model: its endpoint and model name. */
export const protocolKey = (llm: { model: string; endpoint?: string }): string => `${llm.endpoint ?? ''} ${llm.model}`;
