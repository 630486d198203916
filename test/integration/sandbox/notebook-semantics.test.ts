import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type TestSandbox } from './helpers.js';

// The user's code runs in the real `__main__` module, as in Jupyter: what it defines can be found by
// name, so pickle, multiprocessing, joblib and dill work on it.
let t: TestSandbox;

beforeAll(async () => {
  t = await makeSandbox('notebook');
});
afterAll(async () => {
  await t?.close();
});

async function python(key: string, code: string) {
  const result = await t.sandbox.run(key, { language: 'python', code });
  expect(result.error, result.error?.traceback).toBeUndefined();
  expect(result.status).toBe('ok');
  return result;
}

describe('notebook semantics', () => {
  it('round-trips a class defined in the run through pickle, across runs', async () => {
    await python(
      'pickle',
      'import pickle\nclass P:\n    def __init__(self, x): self.x = x\nblob = pickle.dumps(P(41))',
    );
    const result = await python(
      'pickle',
      'restored = pickle.loads(blob)\nprint(type(restored).__module__, restored.x + 1)',
    );
    expect(result.stdout).toBe('__main__ 42\n');
  });

  it('maps a function defined in the run over a multiprocessing Pool (within the pids limit)', async () => {
    const result = await python(
      'pool',
      [
        'import multiprocessing as mp',
        'def square(v): return v * v',
        'with mp.Pool(2) as pool:',
        '    print(pool.map(square, range(8)))',
      ].join('\n'),
    );
    expect(result.stdout).toBe('[0, 1, 4, 9, 16, 25, 36, 49]\n');
  });

  it("sizes a default Pool by the container's CPU share, not the host's cores", async () => {
    const result = await python(
      'pool-default',
      [
        'import multiprocessing as mp, os',
        'def double(v): return 2 * v',
        'with mp.Pool() as pool:',
        '    print(os.cpu_count(), pool._processes, sum(pool.map(double, range(100))))',
      ].join('\n'),
    );
    expect(result.stdout).toBe('1 1 9900\n');
  });

  it('dumps and loads a scikit-learn Pipeline with a custom transformer through joblib', async () => {
    const result = await python(
      'joblib',
      [
        'import joblib, numpy as np',
        'from sklearn.base import BaseEstimator, TransformerMixin',
        'from sklearn.linear_model import LinearRegression',
        'from sklearn.pipeline import Pipeline',
        'class Double(BaseEstimator, TransformerMixin):',
        '    def fit(self, X, y=None): return self',
        '    def transform(self, X): return np.asarray(X) * 2',
        'X = np.arange(10).reshape(-1, 1); y = 3 * np.arange(10)',
        'joblib.dump(Pipeline([("double", Double()), ("lr", LinearRegression())]).fit(X, y), "model.joblib")',
        'model = joblib.load("model.joblib")',
        'print(type(model.steps[0][1]).__name__, round(float(model.predict(np.array([[4]]))[0]), 6))',
      ].join('\n'),
    );
    expect(result.stdout).toBe('Double 12.0\n');
    expect(result.artifacts.map((a) => a.path)).toContain('model.joblib');
  });

  it('serialises a class instance and a closure with dill', async () => {
    const result = await python(
      'dill',
      [
        'import dill',
        'class Q:',
        '    def __init__(self): self.v = 2',
        'offset = 40',
        'def add(v): return v + offset',
        'q = dill.loads(dill.dumps(Q()))',
        'print(type(q).__name__, dill.loads(dill.dumps(add))(q.v))',
      ].join('\n'),
    );
    expect(result.stdout).toBe('Q 42\n');
  });

  it("keeps the runner's own names out of the user's namespace", async () => {
    const result = await python(
      'namespace',
      'import sys\nprint(sys.modules["__main__"] is sys.modules[__name__], sorted(k for k in globals() if not k.startswith("_")))',
    );
    expect(result.stdout).toBe("True ['sys']\n");
  });

  it('ignores an interrupt that lands outside the user code, and keeps the interpreter', async () => {
    // A late SIGINT (the code sends one to the runner after its run ended) once escaped the runner's
    // own loop and ended the interpreter.
    await python(
      'late-interrupt',
      'import os, signal, threading\nkept = 7\nthreading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()',
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await python('late-interrupt', 'print(kept * 6)');
    expect(after.stdout).toBe('42\n');
    expect(after.stateReset).toBeUndefined();
    expect(after.executionCount).toBe(2);
  });
});
