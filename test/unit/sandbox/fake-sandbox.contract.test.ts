import { FakeSandbox, type FakeRunContext, type FakeRunOutcome } from '../../fakes/fake-sandbox.js';
import { sandboxContract, type SandboxPrograms } from '../../contract/sandbox-contract.js';

/** The fake runs no code: its programs are JSON lists of steps, and the handler below says what each does. */
type Step =
  | { op: 'print'; text: string }
  | { op: 'assign'; name: string; value: number }
  | { op: 'printVariable'; name: string }
  | { op: 'fail'; message: string }
  | { op: 'sleep'; ms: number }
  | { op: 'write'; path: string; text: string }
  | { op: 'writeBytes'; path: string; bytes: number }
  | { op: 'printFile'; path: string }
  | { op: 'remove'; path: string }
  | { op: 'crash' };

const step = (s: Step) => JSON.stringify([s]);

const programs: SandboxPrograms = {
  print: (text) => step({ op: 'print', text }),
  assign: (name, value) => step({ op: 'assign', name, value }),
  printVariable: (name) => step({ op: 'printVariable', name }),
  fail: (message) => step({ op: 'fail', message }),
  sleep: (ms) => step({ op: 'sleep', ms }),
  write: (path, text) => step({ op: 'write', path, text }),
  writeBytes: (path, bytes) => step({ op: 'writeBytes', path, bytes }),
  printFile: (path) => step({ op: 'printFile', path }),
  remove: (path) => step({ op: 'remove', path }),
  crash: () => step({ op: 'crash' }),
  sequence: (...all) => JSON.stringify(all.flatMap((p) => JSON.parse(p) as Step[])),
};

/** What the steps of a program do, as the handler's outcome; an error ends the program like Python's would. */
function runSteps({ request, variables, files }: FakeRunContext): FakeRunOutcome {
  const outcome: FakeRunOutcome & { writeFiles: Record<string, string | Buffer>; deleteFiles: string[] } = {
    stdout: '',
    writeFiles: {},
    deleteFiles: [],
  };
  for (const s of JSON.parse(request.code) as Step[]) {
    if (s.op === 'print') outcome.stdout += `${s.text}\n`;
    else if (s.op === 'assign') variables.set(s.name, s.value);
    else if (s.op === 'sleep') outcome.delayMs = (outcome.delayMs ?? 0) + s.ms;
    else if (s.op === 'write') outcome.writeFiles[s.path] = s.text;
    else if (s.op === 'writeBytes') outcome.writeFiles[s.path] = Buffer.alloc(s.bytes, 1);
    else if (s.op === 'remove') outcome.deleteFiles.push(s.path);
    else if (s.op === 'printFile') outcome.stdout += files.get(s.path)?.toString() ?? '';
    else if (s.op === 'crash') return { ...outcome, status: 'killed', killReason: 'crash' };
    else if (s.op === 'printVariable' && variables.has(s.name)) outcome.stdout += `${String(variables.get(s.name))}\n`;
    else {
      const error =
        s.op === 'fail'
          ? { name: 'ValueError', value: s.message, traceback: '' }
          : { name: 'NameError', value: `name '${s.name}' is not defined`, traceback: '' };
      return { ...outcome, error };
    }
  }
  return outcome;
}

sandboxContract('FakeSandbox', async (limits) => {
  const sandbox = new FakeSandbox({
    handler: runSteps,
    limits,
    previewCostMs: (path) => (path === 'slow.xlsx' ? 60_000 : 0),
  });
  return {
    sandbox,
    programs,
    slowPreview: { name: 'slow.xlsx', data: Buffer.from('PK a workbook that takes a minute to read') },
    dispose: () => sandbox.close(),
  };
});
