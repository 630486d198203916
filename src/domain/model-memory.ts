/**
 * Everything the process learns about a model server and its model, in one place: the server's dialect (what it
 * refuses and how it wants a request), the model's context window, and which tool protocol it speaks. Each
 * concern keeps its notes under a topic of its own; all are kept per endpoint and model, for the process, and
 * forgotten together, oldest first, past a bound.
 */

/** A kind of note, with the type its notes have. */
export interface ModelTopic<T> {
  readonly name: string;
  /** The notes of a model not seen before. */
  readonly initial: () => T;
}

export const modelTopic = <T>(name: string, initial: () => T): ModelTopic<T> => ({ name, initial });

/** Which model, where: the endpoint as it may be shown (credentials redacted) and the model's name. */
export interface ModelId {
  model: string;
  endpoint?: string;
}

/** Most endpoint-and-model pairs remembered (a process talks to one or two; `threadlab eval` to a few). */
export const MAX_MODELS = 64;

export class ModelMemory {
  private readonly models = new Map<string, Map<string, unknown>>();

  constructor(private readonly maxModels = MAX_MODELS) {}

  /** The notes on `topic` about `id`, made from the topic's initial value the first time. */
  notes<T>(id: ModelId, topic: ModelTopic<T>): T {
    const key = modelKey(id);
    let notes = this.models.get(key);
    if (!notes) {
      if (this.models.size >= this.maxModels) this.models.delete(this.models.keys().next().value!);
      notes = new Map();
      this.models.set(key, notes);
    }
    if (!notes.has(topic.name)) notes.set(topic.name, topic.initial());
    return notes.get(topic.name) as T;
  }

  /** Whether anything was noted about `id` under `topic` (nothing is made by asking). */
  has(id: ModelId, topic: ModelTopic<unknown>): boolean {
    return this.models.get(modelKey(id))?.has(topic.name) ?? false;
  }

  get size(): number {
    return this.models.size;
  }
}

/** The key of what is learned about a model: its endpoint and name. */
export const modelKey = (id: ModelId): string => `${id.endpoint ?? ''} ${id.model}`;
