import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { runWithCode } from '../../../cli/eval/code-mode.js';
import {
  countFailures,
  failureOf,
  failureOfRun,
  FAILURE_ORDER,
  type FailureEvidence,
} from '../../../cli/eval/failure.js';
import { runWithoutCode } from '../../../cli/eval/no-code-mode.js';
import type { TaskRun } from '../../../cli/eval/result.js';
import { EVAL_TASKS } from '../../../cli/eval/tasks/index.js';
import { loadConfig } from '../../../src/config/index.js';
import { ThreadlabError } from '../../../src/domain/errors.js';
import type { LlmResponse } from '../../../src/ports/llm-client.js';
import { FakeSandbox } from '../../fakes/fake-sandbox.js';
import { answer, runCode, ScriptedLlm } from '../../fakes/scripted-llm.js';

const settings = loadConfig({}).llm;
const logger = pino({ level: 'silent' });
const task = EVAL_TASKS.find((t) => t.id === 'agg-total-revenue')!;
const KEY_ERROR = { status: 'error' as const, error: { name: 'KeyError', value: "'revenue'", traceback: 'KeyError' } };

const evidence = (fields: Partial<FailureEvidence>): FailureEvidence => ({
  mode: 'code',
  correct: false,
  outcome: 'answer',
  runs: 1,
  ...fields,
});

async function withCode(llm: ScriptedLlm, sandbox = new FakeSandbox(), timeoutMs = 30_000): Promise<TaskRun> {
  const deps = { llm, sandbox, settings, sandboxTimeoutMs: 5000, timeoutMs, logger, runId: 'failure' };
  return runWithCode(task, await task.build(), deps);
}

describe('the failure class of a run', () => {
  it('is none for a right answer, whatever the model did on the way', () => {
    expect(failureOf(evidence({ correct: true, behaviour: ['narration', 'tool_renamed'] }))).toBeUndefined();
  });

  it('reads the loop’s notes before the outcome, then the outcome, then the kind of answer', () => {
    expect(failureOf(evidence({ outcome: 'budget', behaviour: ['repeated_failure', 'loop_stopped'] }))).toBe('loop');
    expect(failureOf(evidence({ outcome: 'failed', behaviour: ['context_shortened', 'context_refused'] }))).toBe(
      'context',
    );
    expect(failureOf(evidence({ outcome: 'failed', errorCode: 'llm_context_exceeded' }))).toBe('context');
    const vllm = "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens";
    expect(failureOf(evidence({ outcome: 'failed', errorCode: 'llm_refused', message: vllm }))).toBe('context');
    expect(failureOf(evidence({ outcome: 'failed', errorCode: 'llm_refused', message: 'content policy' }))).toBe(
      'refused',
    );
    expect(failureOf(evidence({ outcome: 'failed', errorCode: 'llm_unreachable' }))).toBe('server');
    expect(failureOf(evidence({ outcome: 'failed', errorCode: 'llm_tools_unsupported' }))).toBe('server');
    expect(failureOf(evidence({ outcome: 'error' }))).toBe('error');
    expect(failureOf(evidence({ outcome: 'budget' }))).toBe('budget');
    expect(failureOf(evidence({ outcome: 'budget', timedOut: true }))).toBe('time');
    expect(failureOf(evidence({ behaviour: ['empty_answer'] }))).toBe('empty_answer');
    expect(failureOf(evidence({ runs: 0, behaviour: ['refusal'] }))).toBe('refused');
    // A refusal the model got past (it ran code afterwards) is not why the answer was wrong.
    expect(failureOf(evidence({ runs: 2, behaviour: ['refusal'] }))).toBe('wrong_answer');
    expect(failureOf(evidence({ runs: 0, behaviour: ['narration', 'narration_posted'] }))).toBe('no_call');
    expect(failureOf(evidence({ runs: 0 }))).toBe('no_call');
    expect(failureOf(evidence({ mode: 'no-code', runs: 0 }))).toBe('wrong_answer');
    expect(failureOf(evidence({ mode: 'no-code', runs: 0, emptyText: true }))).toBe('empty_answer');
    expect(failureOf(evidence({}))).toBe('wrong_answer');
  });

  it('is read again from a result written before classes existed (no failure, no behaviour)', () => {
    const base: Omit<TaskRun, 'outcome' | 'runs'> = {
      taskId: 't',
      category: task.category,
      mode: 'code',
      correct: false,
      rounds: 1,
      promptTokens: 0,
      completionTokens: 0,
      seconds: 1,
    };
    expect(failureOfRun({ ...base, outcome: 'answer', runs: 1 })).toBe('wrong_answer');
    expect(failureOfRun({ ...base, outcome: 'answer', runs: 0 })).toBe('no_call');
    expect(failureOfRun({ ...base, outcome: 'failed', runs: 0, reason: 'The model API could not be reached.' })).toBe(
      'server',
    );
    expect(failureOfRun({ ...base, outcome: 'answer', runs: 1, failure: 'loop' })).toBe('loop');
    expect(failureOfRun({ ...base, correct: true, outcome: 'answer', runs: 1 })).toBeUndefined();
  });

  it('counts every class, zero where none', () => {
    const counts = countFailures(['loop', 'loop', undefined, 'time']);
    expect(Object.keys(counts)).toEqual(FAILURE_ORDER);
    expect(counts).toMatchObject({ loop: 2, time: 1, wrong_answer: 0 });
  });
});

describe('a code-execution task run carries its failure class and the loop’s notes', () => {
  it('loop: the same failing code three times ends the turn, in 3 model requests', async () => {
    const again = () => runCode('print(df["revenue"].sum())');
    const llm = new ScriptedLlm({ steps: [again(), again(), again(), answer('ANSWER: 1')] });
    const sandbox = new FakeSandbox();
    sandbox.enqueue(KEY_ERROR, KEY_ERROR, KEY_ERROR);
    const run = await withCode(llm, sandbox);
    expect(run).toMatchObject({ correct: false, outcome: 'budget', failure: 'loop', rounds: 3, runs: 3 });
    expect(run.behaviour).toEqual(expect.arrayContaining(['repeated_failure', 'loop_stopped']));
  });

  it('no_call: an answer without running the code the task needs', async () => {
    // The same guess each time it is asked (the figures' verification round asks once more).
    const run = await withCode(new ScriptedLlm({ fallback: answer('I think about 90000.\nANSWER: 90000') }));
    expect(run).toMatchObject({ correct: false, outcome: 'answer', failure: 'no_call', runs: 0 });
  });

  it('refused and context: from the code of the server’s error, not the words of the reply', async () => {
    const refused = new ThreadlabError('llm_refused', 'The server refused: content policy.');
    expect(await withCode(new ScriptedLlm({ steps: [refused] }))).toMatchObject({
      outcome: 'failed',
      failure: 'refused',
    });
    const tooLong = new ThreadlabError('llm_context_exceeded', 'The request does not fit the model.');
    expect(await withCode(new ScriptedLlm({ steps: [tooLong, tooLong] }))).toMatchObject({
      outcome: 'failed',
      failure: 'context',
    });
    const down = new ThreadlabError('llm_unreachable', 'connect ECONNREFUSED 127.0.0.1:1');
    expect(await withCode(new ScriptedLlm({ steps: [down] }))).toMatchObject({ outcome: 'failed', failure: 'server' });
  });

  it('wrong_answer: it ran code and answered, and the answer was checked wrong', async () => {
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: '1\n' });
    const run = await withCode(new ScriptedLlm({ steps: [runCode('print(1)'), answer('ANSWER: 1')] }), sandbox);
    expect(run).toMatchObject({ correct: false, outcome: 'answer', failure: 'wrong_answer', runs: 1 });
    expect(run.behaviour).toBeUndefined();
  });

  it('a right answer has no class', async () => {
    const sandbox = new FakeSandbox();
    sandbox.enqueue({ stdout: '87297.6712\n' });
    const run = await withCode(
      new ScriptedLlm({ steps: [runCode('print(total)'), answer('ANSWER: 87297.67')] }),
      sandbox,
    );
    expect(run).toMatchObject({ correct: true });
    expect(run.failure).toBeUndefined();
  });
});

describe('a no-code task run carries its failure class', () => {
  const noCode = (llm: ScriptedLlm, timeoutMs = 30_000) =>
    task.build().then((built) => runWithoutCode(task, built, { llm, settings, timeoutMs, inlineChars: 60_000 }));

  it('empty_answer, refused, wrong_answer and server', async () => {
    expect(await noCode(new ScriptedLlm({ steps: [answer('')] }))).toMatchObject({ failure: 'empty_answer' });
    const refusal: LlmResponse = {
      content: null,
      refusal: 'I can’t help with that.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 10, completionTokens: 5 },
    };
    expect(await noCode(new ScriptedLlm({ steps: [refusal] }))).toMatchObject({ failure: 'refused' });
    expect(await noCode(new ScriptedLlm({ steps: [answer('ANSWER: 5')] }))).toMatchObject({ failure: 'wrong_answer' });
    const down = new ThreadlabError('llm_api', 'The server kept failing (500).');
    expect(await noCode(new ScriptedLlm({ steps: [down] }))).toMatchObject({ outcome: 'failed', failure: 'server' });
  });
});
