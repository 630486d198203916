import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type TestSandbox } from './helpers.js';
import { anyRuntime } from '../../support/any-runtime.js';

// Kernels start without numpy, pandas and pyplot (an idle sandbox stays small); `prepare` loads them while the
// model writes code, and code that imports them itself still works in a kernel that was never prepared.
let t: TestSandbox;

beforeAll(async () => {
  t = await makeSandbox('data-stack', { poolSize: 1 });
});
afterAll(async () => {
  await t?.close();
});

const LOADED = "import sys\nprint(sorted(m for m in ('numpy', 'pandas', 'matplotlib.pyplot') if m in sys.modules))";

describe('the data stack: loaded on prepare, not while idle', () => {
  it('a new kernel has not imported it; prepare loads it into the same session', anyRuntime, async () => {
    const lean = await t.sandbox.run('lean', { language: 'python', code: LOADED });
    expect(lean.stdout.trim()).toBe('[]');
    await t.sandbox.prepare('lean');
    const after = await t.sandbox.run('lean', { language: 'python', code: LOADED });
    expect(after.stdout.trim()).toBe("['matplotlib.pyplot', 'numpy', 'pandas']");
    // The same session: the first run's count carried on, and prepare is not a run.
    expect(after.executionCount).toBe(2);
  });

  it(
    'prepare on a new thread starts its session with the stack; a run queued behind it waits for it',
    anyRuntime,
    async () => {
      const preparing = t.sandbox.prepare('queued');
      const run = t.sandbox.run('queued', { language: 'python', code: LOADED });
      await preparing;
      expect((await run).stdout.trim()).toBe("['matplotlib.pyplot', 'numpy', 'pandas']");
      expect(t.sandbox.isLive('queued')).toBe(true);
    },
  );

  it(
    'a chart drawn in a kernel that was never prepared is shown, with the Agg backend, by show() and at the end',
    anyRuntime,
    async () => {
      const result = await t.sandbox.run('charts', {
        language: 'python',
        code: [
          'import matplotlib',
          'import matplotlib.pyplot as plt',
          'print(matplotlib.get_backend())',
          'plt.plot([1, 2, 3]); plt.show()',
          'plt.figure(); plt.bar(["a", "b"], [1, 2])',
        ].join('\n'),
      });
      expect(result.status).toBe('ok');
      expect(result.stdout.trim().toLowerCase()).toBe('agg');
      expect(result.displays.filter((d) => d.data['image/png'])).toHaveLength(2);
    },
  );

  it("IPython.display.display is still the runner's in a lean kernel", anyRuntime, async () => {
    const result = await t.sandbox.run('ipython', {
      language: 'python',
      code: 'from IPython.display import display\ndisplay({"answer": 42})',
    });
    expect(result.status).toBe('ok');
    expect(result.displays[0]?.data['text/plain']).toContain('42');
  });
});
