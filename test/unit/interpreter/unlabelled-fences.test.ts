/**
 * The text protocol with models that write code in a bare ``` fence (issue 37): the block runs when its body is
 * plainly code, and output, tables and data in bare fences stay shown. And Llama 3.x's `<|python_tag|>` followed
 * by raw Python runs as Python.
 */
import { describe, expect, it } from 'vitest';
import { guessLanguage } from '../../../src/interpreter/code-guess.js';
import { callsFromText, codeBlocksOf } from '../../../src/interpreter/text-protocol.js';
import { toolCallsInText } from '../../../src/interpreter/text-tool-calls.js';
import { answer, ScriptedLlm } from '../../fakes/scripted-llm.js';
import { input, rig } from './helpers.js';

const BASE = ['python', 'bash'] as const;

describe('the language of an unlabelled block', () => {
  it.each([
    ['import pandas as pd\ndf = pd.read_csv("/mnt/data/s.csv")\nprint(df.v.mean())', 'python'],
    ['print(sum(i * i for i in range(1, 101)))', 'python'],
    ['for i in range(3):\n    print(i)', 'python'],
    ['df.groupby("region")["revenue"].sum()', 'python'],
    ['def f(x):\n    return x * 2\n\nf(21)', 'python'],
    ['#!/usr/bin/env bash\nset -e\nls', 'bash'],
    ['ls -la /mnt/data', 'bash'],
    ['wc -l /mnt/data/sales.csv\nhead -3 /mnt/data/sales.csv', 'bash'],
  ])('%s → %s', (code, language) => {
    expect(guessLanguage(code, BASE)).toBe(language);
  });

  it.each([
    ['a printed value', '338350'],
    ['a DataFrame as printed', '   region  revenue\n0   north      120\n1   south       80'],
    ['printed assignments', 'total = 45\nmean = 4.5'],
    ['a traceback', 'Traceback (most recent call last):\n  File "<cell>", line 1\nKeyError: \'x\''],
    ['a REPL echo', '>>> print(1)\n1'],
    ['prose', 'The sum of the squares is 338350.'],
    ['a CSV', 'region,revenue\nnorth,120\nsouth,80'],
  ])('%s is not code', (_name, text) => {
    expect(guessLanguage(text, BASE)).toBeUndefined();
  });

  it('only guesses a language the sandbox has', () => {
    expect(guessLanguage('ls -la', ['python'])).toBeUndefined();
  });
});

describe('unlabelled blocks in a text-protocol reply', () => {
  it('runs the code block, shows the output block, and leaves the prose around them', () => {
    const text = 'Computing it:\n```\nprint(sum(range(10)))\n```\nIt printed:\n```\n45\n```';
    expect(codeBlocksOf(text, BASE).blocks).toEqual([{ language: 'python', code: 'print(sum(range(10)))' }]);
    const found = callsFromText(text, { round: 1, languages: BASE });
    expect(found.calls).toHaveLength(1);
    expect(found.prose).toContain('45');
    expect(found.prose).not.toContain('print(sum');
  });

  it('runs through the loop with the same tool round as a labelled block', async () => {
    const llm = new ScriptedLlm({
      steps: [answer('Let me compute it.\n\n```\nprint(sum(i * i for i in range(1, 101)))\n```')],
      fallback: answer('It is 338350.'),
    });
    const { interpreter, sandbox } = rig({ llm, settings: { tools: 'text' } });
    sandbox.enqueue({ stdout: '338350\n' });
    const result = await interpreter.handle(input('sum of squares 1..100'), {});
    expect(sandbox.runs.map((r) => r.request.language)).toEqual(['python']);
    expect(result).toMatchObject({ outcome: 'answer', text: 'It is 338350.' });
  });
});

describe("Llama 3.x's python_tag with raw Python", () => {
  it('is a python call, run as run_code', async () => {
    const text = '<|python_tag|>import math\nprint(math.factorial(5))<|eom_id|>';
    expect(toolCallsInText(text, ['run_code']).calls).toEqual([
      { name: 'python', arguments: 'import math\nprint(math.factorial(5))' },
    ]);
    const llm = new ScriptedLlm({ steps: [answer(text)], fallback: answer('5! is 120.') });
    const { interpreter, sandbox } = rig({ llm });
    sandbox.enqueue({ stdout: '120\n' });
    const result = await interpreter.handle(input('5!?'), {});
    expect(sandbox.runs.map((r) => r.request.code)).toEqual(['import math\nprint(math.factorial(5))']);
    expect(result).toMatchObject({ outcome: 'answer', text: '5! is 120.' });
    expect(result.behaviour).toEqual(expect.arrayContaining(['tool_renamed', 'raw_arguments']));
  });
});
