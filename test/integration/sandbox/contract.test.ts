import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxContract, type SandboxPrograms } from '../../contract/sandbox-contract.js';
import { buildXlsx } from '../replies/xlsx.js';
import { makeSandbox, type TestSandbox } from './helpers.js';
import { anyRuntime } from '../../support/any-runtime.js';

const py = (text: string) => JSON.stringify(text);

const programs: SandboxPrograms = {
  print: (text) => `print(${py(text)})`,
  assign: (name, value) => `${name} = ${value}`,
  printVariable: (name) => `print(${name})`,
  fail: (message) => `raise ValueError(${py(message)})`,
  sleep: (ms) => `import time\ntime.sleep(${ms / 1000})`,
  write: (path, text) =>
    `import os\nos.makedirs(os.path.dirname(${py(path)}) or ".", exist_ok=True)\n` +
    `with open(${py(path)}, "w") as f: f.write(${py(text)})`,
  writeBytes: (path, bytes) => `with open(${py(path)}, "wb") as f: f.write(bytes([1]) * ${bytes})`,
  remove: (path) => `import os\nos.remove(${py(path)})`,
  printFile: (path) => `print(open(${py(path)}).read(), end="")`,
  crash: () => 'import os\nos._exit(3)',
  sequence: (...all) => all.join('\n'),
};

/** About 40 M cells declared and 8 M held in one row (~150 KB zipped): reading it takes far longer than a second. */
const slowWorkbook = buildXlsx({
  rows: [
    ['name', 'value'],
    ['a', 1],
  ],
  dimension: 'A1:XFD2442',
  padCells: 8_000_000,
});

sandboxContract('DockerSandbox', async (limits) => {
  const t = await makeSandbox('contract', limits);
  return {
    sandbox: t.sandbox,
    programs,
    slowPreview: { name: 'slow.xlsx', data: await slowWorkbook },
    dispose: t.close,
  };
});

describe("DockerSandbox: a run's files cross the container boundary once", () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await makeSandbox('once');
  });
  afterAll(async () => {
    await t?.close();
  });

  it(
    'reads a file back from the host copy the run brought back, not out of the container again',
    anyRuntime,
    async () => {
      // A thread the code leaves running rewrites the file after the run answered: a read that went back
      // into the container would see the new text (and cost a second transfer of every file replied with).
      const result = await t.sandbox.run('k', {
        language: 'python',
        code: [
          'import threading',
          'with open("report.txt", "w") as f: f.write("as the run left it")',
          'threading.Timer(0.3, lambda: open("report.txt", "w").write("rewritten later")).start()',
        ].join('\n'),
      });
      expect(result.artifacts.map((a) => a.path)).toEqual(['report.txt']);
      await sleep(1000);
      expect((await t.sandbox.readFile('k', 'report.txt')).toString()).toBe('as the run left it');
    },
  );
});
