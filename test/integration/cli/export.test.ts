import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer, fakeRunCode, fakeSay } from '../../fakes/fake-openai-server.js';
import { validateNotebook } from '../../support/nbformat.js';
import { cliEnv, runCli } from './cli-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'threadlab-cli-export-'));
const llm = new FakeOpenAiServer({ fallback: fakeSay('(no more scripted replies)') });
let env: Record<string, string | undefined>;
const cli = (args: string[], stdin = '') => runCli(args, { env, stdin, cwd: dataDir });

const FIRST_TRY = 'import pandas as pd\nprint(numbers_typo)';
const FIXED = 'import pandas as pd\nimport numpy as np\ns = pd.Series(np.array([1, 2, 3]))\nprint(s.sum())';
const CHART =
  'import matplotlib\nmatplotlib.use("Agg")\nimport matplotlib.pyplot as plt\nplt.plot(s)\nplt.title("s")\nplt.show()\nfloat(s.mean())';
const BASH = 'echo from bash > note.txt && cat note.txt';

beforeAll(async () => {
  await llm.start();
  env = cliEnv(dataDir, { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'sk-test-export' });
});

afterAll(async () => {
  await runCli(['daemon', 'stop'], { env: cliEnv(dataDir) });
  await llm.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Cell {
  cell_type: string;
  source: string;
  outputs?: { output_type: string; name?: string; text?: string[]; data?: Record<string, unknown> }[];
}

describe('threadlab chat --thread K --out DIR /export (shipped process, real Docker)', () => {
  it('writes a valid notebook of exactly the successful runs with their outputs, and pinned requirements', async () => {
    llm.push(fakeRunCode(FIRST_TRY), fakeRunCode(FIXED), fakeSay('The sum is 6.'));
    const asked = await cli(['chat', '--thread', 'nb', '--json', 'Sum 1, 2 and 3 with pandas']);
    expect(asked.code, asked.stderr).toBe(0);
    expect(JSON.parse(asked.stdout).runs.map((r: { status: string }) => r.status)).toEqual(['error', 'ok']);
    const chartOut = join(dataDir, 'chart');
    const chart = await cli(['chat', '--thread', 'nb', '--out', chartOut, '--json', `\`\`\`python\n${CHART}\n\`\`\``]);
    expect(JSON.parse(chart.stdout).images).toHaveLength(1);
    const failing = await cli(['chat', '--thread', 'nb', '--json', '```python\n1/0\n```']);
    expect(JSON.parse(failing.stdout).runs[0].status).toBe('error');
    await cli(['chat', '--thread', 'nb', '--json', `\`\`\`bash\n${BASH}\n\`\`\``]);

    const out = join(dataDir, 'export');
    const exported = await cli(['chat', '--thread', 'nb', '--out', out, '--json', '/export']);
    expect(exported.code, exported.stderr).toBe(0);
    const reply = JSON.parse(exported.stdout);
    expect(reply.text).toContain('3 code cells');
    expect(reply.files).toEqual([join(out, 'thread.ipynb'), join(out, 'requirements.txt')]);

    const raw = readFileSync(join(out, 'thread.ipynb'));
    await validateNotebook(raw);
    const cells = JSON.parse(raw.toString()).cells as Cell[];
    const code = cells.filter((c) => c.cell_type === 'code');
    expect(code.map((c) => c.source)).toEqual([FIXED, CHART, `%%bash\n${BASH}`]);
    expect(code[0]!.outputs).toEqual([{ output_type: 'stream', name: 'stdout', text: '6\n' }]);
    const chartOutputs = code[1]!.outputs!;
    const png = chartOutputs.find((o) => o.data?.['image/png'])?.data?.['image/png'] as string;
    expect(Buffer.from(png, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(chartOutputs.some((o) => o.data?.['text/plain'] === '2.0')).toBe(true);
    expect(code[2]!.outputs).toEqual([{ output_type: 'stream', name: 'stdout', text: 'from bash\n' }]);
    const markdown = cells.filter((c) => c.cell_type === 'markdown').map((c) => c.source);
    expect(markdown).toContain('Sum 1, 2 and 3 with pandas');
    expect(raw.toString()).not.toContain('numbers_typo');
    expect(raw.toString()).not.toContain('1/0');

    // The versions are those installed in the thread's sandbox, read without touching its variables or count.
    const versions = await cli(
      ['exec', '--session', 'nb', '--json', '-'],
      'import pandas, numpy, matplotlib\nprint(pandas.__version__, numpy.__version__, matplotlib.__version__, s.sum())',
    );
    const result = JSON.parse(versions.stdout);
    // A distro build's local label (`3.10.1+dfsg1`) is on no package index: the pin is the public version.
    const [pandas, numpy, matplotlib, sum] = result.stdout
      .trim()
      .split(' ')
      .map((v: string) => v.split('+')[0]);
    expect(sum).toBe('6');
    // Runs so far: the failed try, the fix, the chart, 1/0 and bash count; the export's own run does not.
    expect(result.executionCount).toBe(6);
    const requirements = readFileSync(join(out, 'requirements.txt'), 'utf8');
    const pins = requirements.split('\n').filter((l) => l && !l.startsWith('#'));
    // pip reads ` # …` as a comment: a distro build's full version is said there.
    expect(pins.map((l) => l.split(' #')[0]!.trim())).toEqual([
      `matplotlib==${matplotlib}`,
      `numpy==${numpy}`,
      `pandas==${pandas}`,
    ]);

    // The notebook's Python cells run top to bottom in a fresh sandbox.
    const python = code.filter((c) => !c.source.startsWith('%%bash')).map((c) => c.source);
    const fresh = await cli(['exec', '--session', 'nb-rerun', '--json', '-'], python.join('\n\n'));
    expect(JSON.parse(fresh.stdout)).toMatchObject({ status: 'ok', stdout: '6\n' });
  });

  it("pins a package installed in the thread's /mnt/data/.local, mapped from its module to its distribution", async () => {
    const install = [
      'site=$(python3 -c "import site; print(site.getusersitepackages())")',
      'mkdir -p "$site/tinypkg" "$site/tiny_dist-1.2.3.dist-info"',
      'echo "VALUE = 7" > "$site/tinypkg/__init__.py"',
      'printf "Metadata-Version: 2.1\\nName: tiny-dist\\nVersion: 1.2.3\\n" > "$site/tiny_dist-1.2.3.dist-info/METADATA"',
      'echo tinypkg > "$site/tiny_dist-1.2.3.dist-info/top_level.txt"',
    ].join('\n');
    const installed = await cli(['exec', '--session', 'local-pkg', '--lang', 'bash', '--json', '-'], install);
    expect(JSON.parse(installed.stdout).status, installed.stdout).toBe('ok');
    const used = await cli([
      'chat',
      '--thread',
      'local-pkg',
      '--json',
      '```python\nimport tinypkg\nprint(tinypkg.VALUE)\n```',
    ]);
    expect(JSON.parse(used.stdout).text).toContain('7');
    const out = join(dataDir, 'local-pkg');
    const exported = await cli(['chat', '--thread', 'local-pkg', '--out', out, '--json', '/export']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(join(out, 'requirements.txt'), 'utf8')).toMatch(/^tiny-dist==1\.2\.3 {2}# user-installed$/m);
  });

  it("pins what the code really imported, from where: the thread's forged metadata, .pth and kernel environment change nothing and never run (issue 26, item 8)", async () => {
    // A dist-info that claims numpy without providing it, a .pth that would run in any Python reading the user
    // site, and a BASH_ENV in the kernel's environment that would run in (and answer for) any bash it starts.
    const plant = [
      'site=$(python3 -c "import site; print(site.getusersitepackages())")',
      'mkdir -p "$site/numpy_fork_X-6.6.6.dist-info"',
      'printf "Metadata-Version: 2.1\\nName: numpy-fork-X\\nVersion: 6.6.6\\n" > "$site/numpy_fork_X-6.6.6.dist-info/METADATA"',
      'echo numpy > "$site/numpy_fork_X-6.6.6.dist-info/top_level.txt"',
      'echo "numpy/__init__.py,," > "$site/numpy_fork_X-6.6.6.dist-info/RECORD"',
      `echo 'import os; open("/mnt/data/pth-ran", "w").write("x")' > "$site/zz-hostile.pth"`,
    ].join('\n');
    const planted = await cli(['exec', '--session', 'forged', '--lang', 'bash', '--json', '-'], plant);
    expect(JSON.parse(planted.stdout).status, planted.stdout).toBe('ok');
    const forgedAnswer = JSON.stringify({
      python: '3.0',
      unknown: [],
      packages: [{ name: 'evil-numpy', version: '6.6.6', modules: ['numpy'], source: 'image' }],
    });
    const cell = [
      'import os, numpy',
      `open("/mnt/data/env.sh", "w").write("""touch /mnt/data/bash-env-ran\\necho '${forgedAnswer}'\\nexit 0\\n""")`,
      'os.environ["BASH_ENV"] = "/mnt/data/env.sh"',
      'print(numpy.__version__)',
    ].join('\n');
    const used = await cli(['chat', '--thread', 'forged', '--json', `\`\`\`python\n${cell}\n\`\`\``]);
    expect(JSON.parse(used.stdout).runs[0].status, used.stdout).toBe('ok');
    const version = await cli(['exec', '--session', 'forged', '--json', '-'], 'print(numpy.__version__)');
    const numpy = JSON.parse(version.stdout).stdout.trim().split('+')[0] as string;
    expect(numpy).toMatch(/^\d+\.\d+/);

    const out = join(dataDir, 'forged');
    const exported = await cli(['chat', '--thread', 'forged', '--out', out, '--json', '/export']);
    expect(exported.code, exported.stderr).toBe(0);
    const requirements = readFileSync(join(out, 'requirements.txt'), 'utf8');
    expect(requirements.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual([`numpy==${numpy}`]);
    expect(requirements).not.toMatch(/fork|evil|user-installed/);
    const ran = await cli(
      ['exec', '--session', 'forged', '--json', '-'],
      'import os\nprint(os.path.exists("/mnt/data/pth-ran"), os.path.exists("/mnt/data/bash-env-ran"))',
    );
    expect(JSON.parse(ran.stdout).stdout).toBe('False False\n');
  });

  it('exports only inert outputs: scripts, event handlers and javascript: links from the sandbox are left out and said (issue 26, item 7)', async () => {
    const cell = [
      'import pandas as pd',
      'from IPython.display import HTML, SVG',
      'class Hostile:',
      '    def _repr_html_(self):',
      '        return \'<b>hi</b><img src=x onerror="alert(1)">\'',
      '    def __repr__(self):',
      '        return "Hostile()"',
      'class Note:',
      '    def _repr_markdown_(self):',
      '        return "[open](javascript:alert(1))"',
      '    def __repr__(self):',
      '        return "Note()"',
      'display(Hostile())',
      'display(HTML("<script>alert(1)</script>"))',
      'display(SVG(\'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>\'))',
      'display(Note())',
      'pd.DataFrame({"a": [1, 2]})',
    ].join('\n');
    const ran = await cli(['chat', '--thread', 'active', '--json', `\`\`\`python\n${cell}\n\`\`\``]);
    expect(JSON.parse(ran.stdout).runs[0].status, ran.stdout).toBe('ok');
    const out = join(dataDir, 'active');
    const exported = await cli(['chat', '--thread', 'active', '--out', out, '--json', '/export']);
    expect(exported.code, exported.stderr).toBe(0);
    const raw = readFileSync(join(out, 'thread.ipynb'));
    await validateNotebook(raw);
    const code = (JSON.parse(raw.toString()).cells as Cell[]).find((c) => c.cell_type === 'code')!;
    const outputs = code.outputs!;
    const shown = JSON.stringify(outputs.slice(0, -1));
    for (const active of ['<script', 'onerror', 'onload', 'javascript:', '<img'])
      expect(shown, active).not.toContain(active);
    expect(outputs.map((o) => Object.keys(o.data ?? {}).sort())).toEqual([
      ['text/plain'],
      ['text/plain'],
      ['text/plain'],
      ['text/plain'],
      ['text/html', 'text/plain'],
      ['text/markdown'],
    ]);
    expect(outputs[0]!.data!['text/plain']).toBe('Hostile()');
    expect(outputs[4]!.data!['text/html']).toContain('<table');
    const note = outputs.at(-1)!.data!['text/markdown'] as string;
    expect(note).toContain('Left out of this export as active content');
    expect(note.match(/the text\/html form of a result/g)).toHaveLength(2);
    expect(note).toContain('the image/svg+xml form of a result, which held an event handler (onload)');
    expect(note).toContain('the text/markdown form of a result, which held a javascript: URL');
  });

  it('asks for --out DIR instead of exporting files it would not write', async () => {
    const res = await cli(['chat', '--thread', 'nb', '/export']);
    expect(res).toMatchObject({
      code: 2,
      stderr: '/export writes thread.ipynb and requirements.txt: add --out DIR.\n',
    });
  });

  it('says there is nothing to export in a thread without successful runs, and writes no file', async () => {
    const out = join(dataDir, 'empty');
    const res = await cli(['chat', '--thread', 'empty', '--out', out, '--json', '/export']);
    const reply = JSON.parse(res.stdout);
    expect(reply.text).toContain('Nothing to export yet');
    expect(reply.files).toEqual([]);
  });
});
