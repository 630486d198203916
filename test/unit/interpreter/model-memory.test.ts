import { describe, expect, it } from 'vitest';
import { MAX_MODELS, ModelMemory, modelTopic } from '../../../src/domain/model-memory.js';
import { ToolProtocolChoice } from '../../../src/interpreter/tool-protocol.js';

const counter = modelTopic('counter', () => ({ n: 0 }));
const other = modelTopic('other', () => ({ seen: false }));

describe('ModelMemory: what is learned about each model server and model, in one place', () => {
  it('keeps each topic apart, per endpoint and model', () => {
    const memory = new ModelMemory();
    const a = { endpoint: 'http://127.0.0.1:1/v1', model: 'qwen' };
    memory.notes(a, counter).n += 2;
    expect(memory.notes({ ...a }, counter).n).toBe(2);
    expect(memory.notes({ endpoint: a.endpoint, model: 'llama' }, counter).n).toBe(0);
    expect(memory.notes({ endpoint: 'http://127.0.0.1:2/v1', model: 'qwen' }, counter).n).toBe(0);
    expect(memory.has(a, other)).toBe(false);
    expect(memory.notes(a, other).seen).toBe(false);
  });

  it(`forgets the oldest model past ${MAX_MODELS}, all its topics together`, () => {
    const memory = new ModelMemory();
    for (let i = 0; i <= MAX_MODELS; i += 1) memory.notes({ model: `m${i}` }, counter).n = i + 1;
    expect(memory.size).toBe(MAX_MODELS);
    expect(memory.has({ model: 'm0' }, counter)).toBe(false);
    expect(memory.notes({ model: `m${MAX_MODELS}` }, counter).n).toBe(MAX_MODELS + 1);
  });

  it('the tool protocol learned by one interpreter is what another sharing the memory sees', () => {
    const memory = new ModelMemory();
    const model = { endpoint: 'http://127.0.0.1:9/v1', model: 'gpt-oss' };
    new ToolProtocolChoice('auto', undefined, memory).switchToText(model, 'server refuses tools');
    const other = new ToolProtocolChoice('auto', undefined, memory);
    expect(other.current(model)).toBe('text');
    expect(other.reasonFor(model)).toBe('server refuses tools');
    expect(new ToolProtocolChoice('auto').current(model)).toBe('native');
  });
});
