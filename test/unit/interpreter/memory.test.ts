import { describe, expect, it } from 'vitest';
import { resetThreadMemory, trimHistory } from '../../../src/interpreter/memory.js';
import type { HistoryEntry } from '../../../src/ports/conversation-store.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';
import { input, rig, systemText, THREAD } from './helpers.js';

describe('conversation memory', () => {
  it('remembers questions, answers and the code that ran across turns', async () => {
    const llm = new ScriptedLlm({
      steps: [runCode('df = load()\nprint(len(df))'), answer('There are 42 rows.'), answer('Yes, still 42.')],
    });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '42\n' });
    await interpreter.handle(input('how many rows?'), {});
    await interpreter.handle(input('still?'), {});
    const sent = llm.requests[2]!.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'assistant', 'user']);
    expect(sent[1]).toEqual({ role: 'user', content: 'how many rows?' });
    expect(String(sent[2]!.content)).toContain(
      '[Record of code that ran in this thread]\n```python\ndf = load()\nprint(len(df))\n```\n→ ok: output: 42',
    );
    expect(sent[3]).toEqual({ role: 'assistant', content: 'There are 42 rows.' });
    expect(systemText(sent)).not.toContain('trimmed');
  });

  it('trims the oldest entries of a long thread and tells the model', async () => {
    const llm = new ScriptedLlm({ fallback: (_req, i) => answer(`answer ${i} ${'z'.repeat(400)}`) });
    const { interpreter, store } = rig({ llm, settings: { memoryTokens: 600 } });
    for (let i = 0; i < 12; i += 1) await interpreter.handle(input(`question ${i} ${'q'.repeat(400)}`), {});
    const record = await store.get(THREAD);
    expect(record!.trimmedEntries).toBeGreaterThan(0);
    expect(record!.history[0]!.role).toBe('user');
    const last = llm.requests.at(-1)!.messages;
    const sentText = last.map((m) => String(m.content)).join('\n');
    expect(sentText).not.toContain('question 0 ');
    expect(sentText).toContain('question 10 ');
    expect(sentText).toContain('question 11 ');
    expect(systemText(last)).toMatch(/Memory: \d+ earlier entries of this conversation were trimmed/);
    const total = last.slice(1, -1).reduce((sum, m) => sum + String(m.content).length, 0);
    expect(total / 4).toBeLessThanOrEqual(600);
  });

  it('trimHistory keeps the newest entry and never starts on an orphan answer', () => {
    const history: HistoryEntry[] = [
      { role: 'user', text: 'a'.repeat(400), atMs: 1 },
      { role: 'assistant', text: 'b'.repeat(400), atMs: 2 },
      { role: 'user', text: 'c'.repeat(40), atMs: 3 },
      { role: 'assistant', text: 'd'.repeat(40), atMs: 4 },
    ];
    expect(trimHistory(history, 150)).toEqual({ history: history.slice(2), dropped: 2 });
    expect(trimHistory(history, 10_000).dropped).toBe(0);
    expect(trimHistory([history[1]!], 1).history).toHaveLength(1);
  });

  it('resetThreadMemory forgets a thread', async () => {
    const llm = new ScriptedLlm({ steps: [answer('one'), answer('two')] });
    const { interpreter, store } = rig({ llm });
    await interpreter.handle(input('first'), {});
    await resetThreadMemory(store, THREAD);
    await interpreter.handle(input('second'), {});
    expect(llm.requests[1]!.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('MemoryConversationStore expires records ttlMs after the last write', async () => {
    let now = 1000;
    const store = new MemoryConversationStore({ now: () => now, sweepIntervalMs: 0 });
    const record = { history: [], createdAtMs: 0, updatedAtMs: 0, trimmedEntries: 0 };
    await store.put('k', record, 500);
    now = 1499;
    expect(await store.get('k')).toEqual(record);
    now = 1500;
    expect(await store.get('k')).toBeUndefined();
    await store.put('k', record, 500);
    const copy = await store.get('k');
    copy!.history.push({ role: 'user', text: 'mutated outside', atMs: 0 });
    expect((await store.get('k'))!.history).toEqual([]);
    await store.delete('k');
    expect(await store.get('k')).toBeUndefined();
    await store.close();
  });
});
