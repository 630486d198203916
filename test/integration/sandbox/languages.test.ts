import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult, Language } from '../../../src/domain/execution.js';
import { languagesOf } from '../../../src/domain/execution.js';
import { makeSandbox, type TestSandbox } from './helpers.js';
import { anyRuntime } from '../../support/any-runtime.js';

/**
 * R and JavaScript sessions (issue 17) against the real engine, under runc and (integration-runsc) gVisor:
 * each is a process of its own beside the Python kernel, started on first use and kept between runs.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await makeSandbox('lang', { memoryMb: 768, pids: 96, graceMs: 1500, timeoutMs: 60_000 });
});
afterAll(async () => {
  await t?.close();
});

const run = (key: string, language: Language, code: string, timeoutMs?: number): Promise<ExecutionResult> =>
  t.sandbox.run(key, { language, code, ...(timeoutMs ? { timeoutMs } : {}) });

async function ok(key: string, language: Language, code: string): Promise<ExecutionResult> {
  const result = await run(key, language, code);
  expect(result.error, result.error?.traceback).toBeUndefined();
  expect(result.status).toBe('ok');
  return result;
}

const text = (result: ExecutionResult): string =>
  result.displays.flatMap((d) => (d.data['text/plain'] === undefined ? [] : [d.data['text/plain']])).join('\n');
const pngs = (result: ExecutionResult) => result.displays.filter((d) => d.data['image/png']);

describe('the image says which languages it has', () => {
  it('lists R with its package versions and Node with its version', anyRuntime, async () => {
    const env = await t.sandbox.environment();
    expect(languagesOf(env)).toEqual(['python', 'bash', 'r', 'javascript']);
    expect(env.languages?.r?.version).toMatch(/^4\.\d+\.\d+$/);
    expect(Object.keys(env.languages?.r?.packages ?? {})).toEqual(
      expect.arrayContaining(['ggplot2', 'dplyr', 'tidyr', 'readr', 'readxl', 'data.table', 'jsonlite']),
    );
    expect(env.languages?.javascript?.version).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('R', () => {
  it('keeps variables and loaded libraries between runs, prints the last visible value, errors are data', async () => {
    const first = await ok('r-state', 'r', 'library(dplyr)\nx <- c(3, 4, 5)\ninvisible(1)');
    expect(first.displays).toHaveLength(0);
    const second = await ok('r-state', 'r', 'y <- tibble(v = x) %>% mutate(w = v * 2)\nsum(y$w)');
    expect(text(second)).toBe('[1] 24');
    expect(second.executionCount).toBe(2);
    const printed = await ok('r-state', 'r', 'cat("to stdout\\n"); message("to stderr"); warning("careful"); 1 + 1');
    expect(printed.stdout).toBe('to stdout\n');
    expect(printed.stderr).toContain('to stderr');
    expect(printed.stderr).toContain('careful');
    const failed = await run(
      'r-state',
      'r',
      'f <- function(v) stop("no such thing: ", v)\ng <- function() f("a")\ng()',
    );
    expect(failed.status).toBe('error');
    expect(failed.error).toMatchObject({ name: 'simpleError', value: 'no such thing: a' });
    expect(failed.error?.traceback).toMatch(/Error in f\("a"\): no such thing: a[\s\S]*f\("a"\)[\s\S]*g\(\)/);
    expect(failed.error?.traceback).not.toContain('tl$');
    const syntax = await run('r-state', 'r', 'x <- (1');
    expect(syntax.error?.name).toBe('SyntaxError');
    expect(text(await ok('r-state', 'r', 'x'))).toBe('[1] 3 4 5');
  });

  it('returns a ggplot chart and a base plot() as PNG displays with their titles', anyRuntime, async () => {
    const gg = await ok(
      'r-plots',
      'r',
      'library(ggplot2)\nggplot(data.frame(a = 1:5, b = c(2, 3, 5, 4, 6)), aes(a, b)) + geom_line() + labs(title = "Growth", x = "day", y = "size")',
    );
    expect(pngs(gg)).toHaveLength(1);
    expect(pngs(gg)[0]!.meta).toMatchObject({
      title: 'Growth',
      xlabel: 'day',
      ylabel: 'size',
      width: 700,
      height: 500,
    });
    expect(Buffer.from(pngs(gg)[0]!.data['image/png']!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const base = await ok('r-plots', 'r', 'plot(1:10, (1:10)^2, main = "Squares", xlab = "n", ylab = "n^2")');
    expect(pngs(base)).toHaveLength(1);
    expect(pngs(base)[0]!.meta).toMatchObject({ title: 'Squares', xlabel: 'n', ylabel: 'n^2' });
    // A plot printed in the middle of a cell is shown too, and no plot file is left in /mnt/data.
    const printed = await ok(
      'r-plots',
      'r',
      'p <- ggplot(mtcars, aes(wt, mpg)) + geom_point() + ggtitle("Cars")\nprint(p)\nnrow(mtcars)',
    );
    expect(text(printed)).toBe('[1] 32');
    expect(pngs(printed)[0]!.meta?.title).toBe('Cars');
    expect(printed.artifacts).toEqual([]);
  });

  it('reads a CSV that Python wrote in the same /mnt/data', anyRuntime, async () => {
    await ok(
      'shared',
      'python',
      'import pandas as pd\npd.DataFrame({"a": [1, 2, 3], "b": [10, 20, 30]}).to_csv("shared.csv", index=False)',
    );
    const r = await ok(
      'shared',
      'r',
      'library(readr)\nd <- read_csv("shared.csv", show_col_types = FALSE)\nsum(d$a * d$b)',
    );
    expect(text(r)).toBe('[1] 140');
    const js = await ok(
      'shared',
      'javascript',
      "require('node:fs').readFileSync('shared.csv', 'utf8').trim().split('\\n').length",
    );
    expect(text(js)).toBe('4');
  });

  it('a loop past the timeout is interrupted, keeps the session and its variables, and leaves no process', async () => {
    await ok('r-loop', 'r', 'kept <- 42');
    const started = Date.now();
    const looped = await run('r-loop', 'r', 'system("sleep 300", wait = FALSE)\nwhile (TRUE) { kept <- kept }', 2000);
    expect(Date.now() - started).toBeLessThan(6000);
    expect(looped.status).toBe('timeout');
    expect(looped.stateReset).toBeUndefined();
    const after = await ok('r-loop', 'r', 'kept');
    expect(text(after)).toBe('[1] 42');
    // The stop stopped the sleep the loop started; a run that ends by itself stops what it left and counts it.
    const left = await ok('r-loop', 'r', 'system("sleep 302", wait = FALSE)\nkept + 1');
    expect(left.stoppedProcesses).toBe(1);
    expect(text(left)).toBe('[1] 43');
    const ps = await ok('r-loop', 'bash', 'ps -eo uid=,args= | awk \'$1 == 1000\' | grep -c "[s]leep 30[02]" || true');
    expect(ps.stdout.trim()).toBe('0');
    expect(text(await ok('r-loop', 'r', 'kept'))).toBe('[1] 42');
  });
});

describe('JavaScript', () => {
  it('keeps top-level bindings between runs, awaits at top level, shows the last value, errors are data', async () => {
    await ok(
      'js-state',
      'javascript',
      'let total = 40;\nconst add = (a, b) => a + b;\nfunction twice(v) { return 2 * v }',
    );
    const value = await ok('js-state', 'javascript', 'total = add(total, 2)\ntotal');
    expect(text(value)).toBe('42');
    const awaited = await ok(
      'js-state',
      'javascript',
      'const later = await new Promise((r) => setTimeout(() => r(twice(total)), 20));\nlater',
    );
    expect(text(awaited)).toBe('84');
    expect(text(await ok('js-state', 'javascript', '({ later, list: [1, 2] })'))).toBe('{ later: 84, list: [ 1, 2 ] }');
    const logged = await ok('js-state', 'javascript', "console.log('out'); console.error('err')");
    expect(logged).toMatchObject({ stdout: 'out\n', stderr: 'err\n', displays: [] });
    const failed = await run('js-state', 'javascript', "function deep() { throw new RangeError('too far') }\ndeep()");
    expect(failed.error).toMatchObject({ name: 'RangeError', value: 'too far' });
    expect(failed.error?.traceback).toMatch(/at deep \(<cell-\d+>:1:\d+\)/);
    expect(failed.error?.traceback).not.toContain('js_driver');
  });

  it('a busy loop past the timeout is interrupted and the session keeps its bindings; a pending await too', async () => {
    await ok('js-loop', 'javascript', 'var kept = 7');
    const looped = await run(
      'js-loop',
      'javascript',
      "require('node:child_process').spawn('sleep', ['301'], { detached: true, stdio: 'ignore' });\nwhile (true) {}",
      2000,
    );
    expect(looped.status).toBe('timeout');
    expect(looped.stateReset).toBeUndefined();
    expect(text(await ok('js-loop', 'javascript', 'kept'))).toBe('7');
    const waiting = await run('js-loop', 'javascript', 'await new Promise(() => {})', 1500);
    expect(waiting.status).toBe('timeout');
    expect(text(await ok('js-loop', 'javascript', 'kept + 1'))).toBe('8');
    const left = await ok(
      'js-loop',
      'javascript',
      "require('node:child_process').spawn('sleep', ['303'], { detached: true, stdio: 'ignore' }).unref(); kept",
    );
    expect(left.stoppedProcesses).toBe(1);
    const ps = await ok('js-loop', 'bash', 'ps -eo uid=,args= | awk \'$1 == 1000\' | grep -c "[s]leep 30[13]" || true');
    expect(ps.stdout.trim()).toBe('0');
  });
});

describe('a session that dies', () => {
  it('is started again on next use and the result says its variables were reset', async () => {
    await ok('r-crash', 'r', 'v <- 1');
    const crashed = await run('r-crash', 'r', 'tools::pskill(Sys.getpid(), tools::SIGKILL)');
    expect(crashed.status).toBe('killed');
    expect(crashed.stateReset?.reason).toMatch(/R process was killed by SIGKILL/);
    const after = await ok('r-crash', 'r', 'exists("v")');
    expect(text(after)).toBe('[1] FALSE');
    expect(after.executionCount).toBe(1);
    // The Python kernel of the same container was not touched.
    expect((await ok('r-crash', 'python', 'print(1)')).stateReset).toBeUndefined();
  });
});
