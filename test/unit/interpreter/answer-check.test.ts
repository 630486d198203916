import { describe, expect, it } from 'vitest';
import { ThreadlabError } from '../../../src/domain/errors.js';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { input, rig, THREAD } from './helpers.js';

const ROUND_NOTE = /^\[Threadlab\] Your answer states a figure that no run printed: 12\.4 %\./;

function lastUserText(llm: ScriptedLlm, request: number): string {
  const messages = llm.requests[request]!.messages;
  const last = messages[messages.length - 1]!;
  return typeof last.content === 'string' ? last.content : '';
}

describe('verified answers in the loop (THREADLAB_VERIFY_FIGURES)', () => {
  it('an answer whose figures all come from the output is checked, with no extra round', async () => {
    const llm = new ScriptedLlm({
      steps: [runCode('print(df.sales.mean())'), answer('The mean is **12.35**, over 1,204 orders.')],
    });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: 'mean 12.3456\norders 1204\n' });
    const { interpreter } = rig({ llm, sandbox, settings: { verifyFigures: 'ask' } });
    const result = await interpreter.handle(input('what is the mean of sales'));
    expect(llm.requests).toHaveLength(2);
    expect(result.figures).toMatchObject({ checked: 2, notFound: 0, verificationRound: false });
    expect(result.figures?.line).toBe('✓ 2 figures checked against run output');
    const mark = result.figures!.marks[0]!;
    expect(result.text.slice(mark.start, mark.end)).toBe('12.35');
    expect(mark).toMatchObject({ found: true, title: 'run 1, line 1' });
  });

  it('asks once about an invented figure and shows the corrected answer checked', async () => {
    const llm = new ScriptedLlm({
      steps: [
        runCode('print(share)'),
        answer('Sales grew 12.4 % and the share is 0.45.'),
        runCode('print(growth)'),
        answer('Sales grew 12.7 % and the share is 0.45.'),
      ],
    });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: '0.4512\n' }, { stdout: 'growth 12.71\n' });
    const { interpreter } = rig({ llm, sandbox, settings: { verifyFigures: 'ask' } });
    const result = await interpreter.handle(input('how did sales grow'));
    expect(llm.requests).toHaveLength(4);
    expect(lastUserText(llm, 2)).toMatch(ROUND_NOTE);
    expect(result.outcome).toBe('answer');
    expect(result.text).toBe('Sales grew 12.7 % and the share is 0.45.');
    expect(result.figures).toMatchObject({ checked: 2, notFound: 0, verificationRound: true });
    expect(result.runs).toHaveLength(2);
  });

  it('a model that insists keeps the ⚠ marker; there is no second round', async () => {
    const llm = new ScriptedLlm({
      steps: [runCode('print(1)'), answer('Growth was 12.4 %.'), answer('Growth was 12.4 %, I am sure.')],
    });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: 'growth 0.1271\n' });
    const { interpreter } = rig({ llm, sandbox, settings: { verifyFigures: 'ask' } });
    const result = await interpreter.handle(input('growth?'));
    expect(llm.requests).toHaveLength(3);
    expect(result.text).toBe('Growth was 12.4 %, I am sure.');
    expect(result.figures).toMatchObject({
      checked: 1,
      notFound: 1,
      notFoundTexts: ['12.4 %'],
      verificationRound: true,
    });
    expect(result.figures?.line).toBe('⚠ 1 figure not found in any output: 12.4 %');
    expect(result.figures?.marks[0]).toMatchObject({ found: false, title: 'not found in any output' });
  });

  it('mark: never asks, only marks', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(1)'), answer('Growth was 12.4 %.')] });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: '1\n' });
    const { interpreter } = rig({ llm, sandbox, settings: { verifyFigures: 'mark' } });
    const result = await interpreter.handle(input('growth?'));
    expect(llm.requests).toHaveLength(2);
    expect(result.figures).toMatchObject({ notFound: 1, verificationRound: false });
  });

  it('a turn whose rounds are spent shows the marker without a round', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(1)'), answer('Growth was 12.4 %.')] });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: '1\n' });
    const { interpreter } = rig({ llm, sandbox, settings: { verifyFigures: 'ask', maxRounds: 2 } });
    const result = await interpreter.handle(input('growth?'));
    expect(llm.requests).toHaveLength(2);
    expect(result.figures).toMatchObject({ notFound: 1, verificationRound: false });
  });

  it('a turn whose tokens are spent shows the marker without a round', async () => {
    const llm = new ScriptedLlm({
      steps: [
        runCode('print(1)', 'python', { promptTokens: 500, completionTokens: 20 }),
        answer('Growth was 12.4 %.', { promptTokens: 400, completionTokens: 20 }),
      ],
    });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: '1\n' });
    const { interpreter } = rig({ llm, sandbox, settings: { verifyFigures: 'ask', tokenBudget: 1500 } });
    const result = await interpreter.handle(input('growth?'));
    expect(llm.requests).toHaveLength(2);
    expect(result.outcome).toBe('answer');
    expect(result.figures).toMatchObject({ notFound: 1, verificationRound: false });
  });

  it('a verification round that fails at the model keeps the checked answer, marked', async () => {
    const llm = new ScriptedLlm({
      steps: [runCode('print(1)'), answer('Growth was 12.4 %.'), new ThreadlabError('llm_api', 'server error 500')],
    });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: '1\n' });
    const { interpreter } = rig({ llm, sandbox, settings: { verifyFigures: 'ask' } });
    const result = await interpreter.handle(input('growth?'));
    expect(llm.requests).toHaveLength(3);
    expect(result.outcome).toBe('answer');
    expect(result.text).toBe('Growth was 12.4 %.');
    expect(result.figures).toMatchObject({ notFound: 1, verificationRound: true });
  });

  it("figures of the user's own message are theirs; a turn without runs or files is not checked", async () => {
    const llm = new ScriptedLlm({
      steps: [runCode('print(37)'), answer('There are 37 rows with sales above 1,000.'), answer('About 25 MB.')],
    });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: '37\n' });
    const { interpreter } = rig({ llm, sandbox, settings: { verifyFigures: 'ask' } });
    const first = await interpreter.handle(input('how many rows have sales > 1000?'));
    expect(first.figures).toMatchObject({ checked: 2, notFound: 0 });
    expect(first.figures?.marks[1]).toMatchObject({ text: '1,000', title: 'stated in your message' });
    const second = await interpreter.handle(input('how large may uploads be?'));
    expect(second.figures).toBeUndefined();
    expect(llm.requests).toHaveLength(3);
  });

  it('a figure quoted from a file uploaded with the message is found there, named by the file', async () => {
    const llm = new ScriptedLlm({
      steps: [runCode('print(df.revenue.sum())'), answer('Total revenue is 54, highest in Apr (21).')],
    });
    const sandbox = new FakeSandbox();
    const file = await sandbox.putFile(
      THREAD,
      'sales.csv',
      Buffer.from('month,revenue\nJan,10\nFeb,14\nMar,9\nApr,21\n'),
    );
    sandbox.enqueue({ stdout: '54\n' });
    const { interpreter } = rig({ llm, sandbox, settings: { verifyFigures: 'ask' } });
    const result = await interpreter.handle({ threadKey: THREAD, text: 'total revenue?', uploaded: [file] });
    expect(llm.requests).toHaveLength(2);
    expect(result.figures).toMatchObject({ checked: 2, notFound: 0 });
    expect(result.figures?.marks.map((m) => m.title)).toEqual(['run 1, line 1', 'sales.csv, line 5']);
  });

  it('what the model was shown of a run (its duration, a file and its size) counts as a source', async () => {
    const llm = new ScriptedLlm({
      steps: [runCode('df.to_csv("out.csv")'), answer('Wrote out.csv (2.0 KB) in 37 ms.')],
    });
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ writeFiles: { 'out.csv': 'x'.repeat(2048) }, durationMs: 37 });
    const { interpreter } = rig({ llm, sandbox, settings: { verifyFigures: 'ask' } });
    const result = await interpreter.handle(input('save it'));
    expect(llm.requests).toHaveLength(2);
    expect(result.figures).toMatchObject({ notFound: 0 });
  });

  it('off: nothing is checked', async () => {
    const llm = new ScriptedLlm({ steps: [runCode('print(1)'), answer('Growth was 12.4 %.')] });
    const { interpreter } = rig({ llm, settings: { verifyFigures: 'off' } });
    const result = await interpreter.handle(input('growth?'));
    expect(result.figures).toBeUndefined();
  });
});
