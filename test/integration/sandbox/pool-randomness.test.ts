import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type TestSandbox } from './helpers.js';

/**
 * Every sandbox the warm pool hands out, primed with the data stack or not, is a container started on its own (issue
 * 41 asks it of any sandbox made cheaply: restored, cloned or pooled): it shares nothing writable with its siblings
 * and has its own randomness. Runs under runc and again under gVisor (RUNTIME_SENSITIVE in vitest.config.ts).
 */
const RANDOMNESS = `import os, random, sys
import numpy as np
print(sys.flags.hash_randomization, hash("threadlab"), random.getrandbits(64), np.random.randint(2**31),
      int(np.random.default_rng().integers(2**62)), os.urandom(16).hex(), sep="\\n")`;

let t: TestSandbox;
const hits = { count: 0 };
beforeAll(async () => {
  t = await makeSandbox('rand', { poolSize: 2, poolMax: 2 }, undefined, {
    observer: { size: () => {}, sessions: () => {}, hit: () => (hits.count += 1), miss: () => {} },
  });
  await t.sandbox.start();
});
afterAll(async () => {
  await t?.close();
});

describe('sandboxes from the warm pool', () => {
  it('each have their own hash seed, random and numpy seeds and /dev/urandom, primed or not, and share no files', async () => {
    const fields = async (key: string) => {
      const result = await t.sandbox.run(key, { language: 'python', code: RANDOMNESS });
      expect(result.status).toBe('ok');
      return result.stdout.trim().split('\n');
    };
    const differ = (a: string[], b: string[]) => {
      expect(a[0]).toBe('1'); // hash randomization on
      for (let i = 1; i < a.length; i += 1) expect(a[i], `field ${i}`).not.toBe(b[i]);
    };
    await t.sandbox.pool.whenFull();
    // Two lean pooled sandboxes (no demand yet when they started).
    const [a, b] = await Promise.all([fields('rand-a'), fields('rand-b')]);
    differ(a, b);
    // The pool refills primed now that sessions began: two sandboxes holding the data stack differ as well.
    await t.sandbox.pool.whenFull();
    await t.sandbox.run('rand-c', { language: 'python', code: 'open("mine.txt", "w").write("c")' });
    const d = await t.sandbox.run('rand-d', {
      language: 'python',
      code: 'import os, sys\nprint("numpy" in sys.modules, os.path.exists("mine.txt"))',
    });
    expect(d.stdout.trim()).toBe('True False'); // primed by the pool; the sibling's file is not here
    const [c2, d2] = await Promise.all([fields('rand-c'), fields('rand-d')]);
    differ(c2, d2);
    differ(a, c2);
    expect(hits.count).toBe(4);
  });
});
