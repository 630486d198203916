import { describe, expect, it } from 'vitest';
import { parseThreadLink } from '../../../adapters/slack/export-command.js';
import { exportThread, recordTurn } from '../../../src/export/index.js';
import { MAX_MODULES } from '../../../src/export/package-versions.js';
import { MemoryConversationStore } from '../../../src/conversations/memory-conversation-store.js';
import { FakeSandbox, type FakeRunOutcome } from '../../fakes/fake-sandbox.js';
import { run } from './turn-runs.js';

async function exportWith(code: string, answer: FakeRunOutcome) {
  const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
  await recordTurn({ store, threadKey: 't', runs: [run(code)], atMs: 1 });
  const sandbox = new FakeSandbox({ handler: () => answer });
  const reply = await exportThread({ store, sandbox, threadKey: 't' });
  const requirements = reply.files.find((f) => f.name === 'requirements.txt')?.data.toString() ?? '';
  return { reply, requirements, sandbox };
}

const answer = (packages: unknown, unknown: unknown = [], python = '3.12.7'): FakeRunOutcome => ({
  stdout: JSON.stringify({ python, unknown, packages }),
});

describe('exportThread', () => {
  it('asks the sandbox once, as an internal bash run, about the non-relative imports only', async () => {
    const { requirements, sandbox } = await exportWith(
      'import pandas as pd\nfrom . import local\nimport os\nimport mymod',
      answer([{ name: 'pandas', version: '2.2.3+dfsg', modules: ['pandas'], source: 'image' }], ['mymod']),
    );
    expect(sandbox.runs).toHaveLength(1);
    const request = sandbox.runs[0]!.request;
    expect(request).toMatchObject({ language: 'bash', internal: true });
    expect(request.code).toMatch(/^python3 -I -c '[^']*' mymod os pandas$/);
    expect(requirements).toContain('# Python 3.12.7\npandas==2.2.3  # installed: 2.2.3+dfsg, a distro build\n');
    expect(requirements).toContain('not installed): mymod\n');
  });

  it('writes nothing the sandbox claims that is not a distribution name and version', async () => {
    const { requirements } = await exportWith(
      'import evil',
      answer(
        [
          { name: 'evil', version: '1.0\n--index-url http://x', modules: ['evil'], source: 'image' },
          { name: '-e git+http://x', version: '1', modules: ['evil'], source: 'image' },
          { name: 'fine', version: '1.0', modules: ['evil', 'not-asked'], source: 'image' },
        ],
        ['evil', 'never-asked'],
        '3.12\nrm',
      ),
    );
    expect(requirements).not.toContain('index-url');
    expect(requirements).not.toContain('git+');
    expect(requirements).not.toContain('never-asked');
    expect(requirements).toContain('# Python unknown\nfine==1.0\n');
  });

  it("pins the image's packages, then marks those the thread installed itself, and says so in the reply", async () => {
    const { requirements, reply } = await exportWith(
      'import numpy, tinypkg',
      answer([
        { name: 'numpy', version: '2.2.4', modules: ['numpy'], source: 'image' },
        { name: 'tiny-dist', version: '1.2.3', modules: ['tinypkg'], source: 'user' },
      ]),
    );
    expect(requirements).toContain(
      "numpy==2.2.4\n# Installed by the thread's own code into /mnt/data/.local, not part of the sandbox image; check these names before installing:\ntiny-dist==1.2.3  # user-installed\n",
    );
    expect(reply.text).toContain('marks them `# user-installed`');
    const unsourced = await exportWith('import numpy', answer([{ name: 'numpy', version: '1', modules: ['numpy'] }]));
    expect(unsourced.requirements).toContain('could not be read (the answer was not what was expected)');
  });

  it("charges the lookup's run time to the requester's budget like any run, and passes on its notices", async () => {
    const store = new MemoryConversationStore({ sweepIntervalMs: 0 });
    await recordTurn({ store, threadKey: 't', runs: [run('import numpy')], atMs: 1 });
    const sandbox = new FakeSandbox({ handler: () => ({ ...answer([]), durationMs: 420 }) });
    const charged: unknown[] = [];
    const budget = {
      notices: [] as string[],
      exceeded: async () => undefined,
      runMsLeft: async () => undefined,
      hold: () => Promise.reject(new Error('the export charges its lookup after it ran')),
      charge: async (spent: unknown) => {
        charged.push(spent);
        budget.notices.push('80% of the run time is spent');
      },
    };
    const reply = await exportThread({ store, sandbox, threadKey: 't', budget });
    expect(charged).toEqual([{ runMs: 420 }]);
    expect(reply.text).toContain('80% of the run time is spent');
    expect(sandbox.runs[0]!.request.timeoutMs).toBeUndefined();
  });

  it('says why versions are missing when the lookup fails or answers nonsense, and still sends the notebook', async () => {
    for (const [outcome, why] of [
      [{ status: 'error', stdout: '' }, 'the lookup ended with error'],
      [{ stdout: 'not json' }, 'the answer was not what was expected'],
      [{ stdout: 'x'.repeat(300 * 1024) }, 'the answer was too large'],
      [answer('many'), 'the answer was not what was expected'],
    ] as [FakeRunOutcome, string][]) {
      const { reply, requirements } = await exportWith('import numpy', outcome);
      expect(reply.files.map((f) => f.name)).toEqual(['thread.ipynb', 'requirements.txt']);
      expect(requirements).toContain(`could not be read (${why})`);
      expect(requirements).toContain('\n# numpy\n');
      expect(reply.text).toContain(`Package versions could not be read (${why})`);
    }
  });

  it(`asks about at most ${MAX_MODULES} modules, and only names that are identifiers`, async () => {
    const imports = Array.from({ length: MAX_MODULES + 50 }, (_, i) => `import mod${String(i).padStart(3, '0')}`);
    const { sandbox } = await exportWith(imports.join('\n'), answer([]));
    const args = sandbox.runs[0]!.request.code.split("' ")[1]!.split(' ');
    expect(args).toHaveLength(MAX_MODULES);
    expect(args.every((a) => /^mod\d{3}$/.test(a))).toBe(true);
  });

  it('runs nothing in the sandbox when the code imports nothing, and answers an empty thread with a notice', async () => {
    const { requirements, sandbox } = await exportWith('print(1)', answer([]));
    expect(sandbox.runs).toHaveLength(0);
    expect(requirements).toContain('no packages beyond the standard library');
    const empty = await exportThread({
      store: new MemoryConversationStore({ sweepIntervalMs: 0 }),
      sandbox: new FakeSandbox(),
      threadKey: 'none',
    });
    expect(empty).toMatchObject({ kind: 'notice', files: [] });
    expect(empty.text).toContain('Nothing to export yet');
  });
});

describe('parseThreadLink (Slack)', () => {
  it('reads the thread of a message link, a reply link naming its thread, and nothing else', () => {
    expect(parseThreadLink('https://acme.slack.com/archives/C0123ABC/p1700000000123456')).toEqual({
      channel: 'C0123ABC',
      threadTs: '1700000000.123456',
    });
    expect(
      parseThreadLink(
        'https://acme.slack.com/archives/C0123ABC/p1700000099000001?thread_ts=1700000000.123456&cid=C0123ABC',
      ),
    ).toEqual({ channel: 'C0123ABC', threadTs: '1700000000.123456' });
    expect(parseThreadLink('https://acme.slack.com/archives/C0123ABC/p1700000099000001?thread_ts=x')).toBeUndefined();
    expect(parseThreadLink('https://evil.example/archives/C0123ABC/p1700000000123456')).toBeUndefined();
    expect(parseThreadLink('C0123ABC 1700000000.123456')).toBeUndefined();
  });
});
