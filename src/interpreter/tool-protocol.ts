import { ModelMemory, modelTopic, type ModelId } from '../domain/model-memory.js';
import type { Logger } from '../logger.js';

/** `THREADLAB_LLM_TOOLS`: how the model asks for code to run. */
export type ToolProtocolSetting = 'auto' | 'native' | 'text';
export type ToolProtocol = 'native' | 'text';

/** Why `auto` left native tool calls for an endpoint and model. */
export type SwitchReason = 'server refuses tools' | 'tool call written as text' | 'code written as a fenced block';

/** What is known about a model's tool calls, kept with everything else learned about it (ModelMemory). */
interface ProtocolNotes {
  /** Set once the model was moved to the text protocol, with why. */
  text?: SwitchReason;
  /** The model has made a native tool call. */
  nativeSeen: boolean;
  /** Turns whose first answer was an unexecuted fenced block although tools were offered. */
  fencedTurns: number;
}

const PROTOCOL = modelTopic<ProtocolNotes>('tool protocol', () => ({ nativeSeen: false, fencedTurns: 0 }));

/**
 * Which protocol each endpoint and model gets, decided once and remembered for the process: `native` and
 * `text` as set; `auto` starts native and moves a model to text when its server refuses tools, or it writes
 * tool calls as text, or (while it has never made a native call) answers the first round of two turns with
 * unexecuted fenced blocks. A model seen making native calls is not moved by fenced blocks: those are then code
 * it chose to show.
 */
export class ToolProtocolChoice {
  constructor(
    readonly setting: ToolProtocolSetting,
    private readonly logger?: Logger,
    private readonly memory: ModelMemory = new ModelMemory(),
  ) {}

  current(model: ModelId): ToolProtocol {
    if (this.setting !== 'auto') return this.setting;
    return this.reasonFor(model) ? 'text' : 'native';
  }

  /** The reason a model uses the text protocol under `auto`, if it does. */
  reasonFor(model: ModelId): SwitchReason | undefined {
    return this.memory.has(model, PROTOCOL) ? this.memory.notes(model, PROTOCOL).text : undefined;
  }

  /** A native tool call came back: the model can call tools. */
  sawNativeCall(model: ModelId): void {
    this.memory.notes(model, PROTOCOL).nativeSeen = true;
  }

  hasMadeNativeCalls(model: ModelId): boolean {
    return this.memory.has(model, PROTOCOL) && this.memory.notes(model, PROTOCOL).nativeSeen;
  }

  /**
   * A turn's first answer was an unexecuted fenced block although tools were offered. Its blocks run either
   * way; the model moves to the text protocol the second time, unless it has made native calls.
   */
  sawFencedInsteadOfCall(model: ModelId): void {
    if (this.setting !== 'auto') return;
    const notes = this.memory.notes(model, PROTOCOL);
    if (notes.nativeSeen) return;
    notes.fencedTurns += 1;
    if (notes.fencedTurns >= 2) this.switchToText(model, 'code written as a fenced block');
  }

  /** Moves a model to the text protocol (auto only); returns whether it moved. */
  switchToText(model: ModelId, reason: SwitchReason): boolean {
    if (this.setting !== 'auto') return false;
    const notes = this.memory.notes(model, PROTOCOL);
    if (notes.text) return false;
    notes.text = reason;
    this.logger?.info(
      { model: model.model, endpoint: model.endpoint, reason },
      'model uses the text protocol (fenced code blocks) from now on',
    );
    return true;
  }
}
