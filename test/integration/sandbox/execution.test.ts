import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type TestSandbox } from './helpers.js';
import { anyRuntime } from '../../support/any-runtime.js';

const CANARY = `threadlab-canary-${Date.now()}`;
let t: TestSandbox;

beforeAll(async () => {
  process.env.THREADLAB_TEST_CANARY_SECRET = CANARY;
  t = await makeSandbox('exec');
});
afterAll(async () => {
  delete process.env.THREADLAB_TEST_CANARY_SECRET;
  await t?.close();
});

describe('DockerSandbox execution', () => {
  it('keeps variables between runs and displays the last expression', async () => {
    const first = await t.sandbox.run('s1', { language: 'python', code: 'x = 20\nprint("set")' });
    expect(first).toMatchObject({ status: 'ok', stdout: 'set\n', executionCount: 1 });
    const second = await t.sandbox.run('s1', { language: 'python', code: 'x * 2 + 2' });
    expect(second.status).toBe('ok');
    expect(second.executionCount).toBe(2);
    expect(second.displays[0]?.data['text/plain']).toBe('42');
    expect(t.sandbox.isLive('s1')).toBe(true);
  });

  it('streams stdout of the code and of subprocesses without corrupting the protocol', async () => {
    const chunks: string[] = [];
    const result = await t.sandbox.run('s1', {
      language: 'python',
      code: 'import os, sys\nprint("a")\nos.system("echo b; echo c >&2")\nsys.stderr.write("d\\n")',
      onStdout: (text) => chunks.push(text),
    });
    expect(result.status).toBe('ok');
    expect(result.stdout).toBe('a\nb\n');
    expect(result.stderr).toBe('c\nd\n');
    expect(chunks.join('')).toBe('a\nb\n');
  });

  it('returns errors of the code as data with runner frames stripped', anyRuntime, async () => {
    const result = await t.sandbox.run('s1', { language: 'python', code: 'def f():\n    return 1/0\nf()' });
    expect(result.status).toBe('error');
    expect(result.error?.name).toBe('ZeroDivisionError');
    expect(result.error?.traceback).toContain('<cell-');
    expect(result.error?.traceback).not.toContain('/opt/threadlab/runner');
  });

  it('returns a chart as a PNG display and a written CSV as an artifact', async () => {
    const displays: string[] = [];
    const result = await t.sandbox.run('s1', {
      language: 'python',
      code: [
        'import pandas as pd, matplotlib.pyplot as plt',
        'df = pd.DataFrame({"x": [1, 2, 3], "y": [2, 4, 8]})',
        'df.to_csv("out.csv", index=False)',
        'plt.plot(df.x, df.y); plt.title("Growth"); plt.xlabel("x"); plt.ylabel("y")',
        'df',
      ].join('\n'),
      onDisplay: (d) => displays.push(Object.keys(d.data).join(',')),
    });
    expect(result.status).toBe('ok');
    const png = result.displays.find((d) => d.data['image/png']);
    expect(png?.meta).toMatchObject({ title: 'Growth', xlabel: 'x', ylabel: 'y' });
    expect(png?.meta?.width).toBeGreaterThan(300);
    expect(png?.meta?.height).toBeGreaterThan(200);
    expect(Buffer.from(png!.data['image/png']!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(result.displays.some((d) => d.data['text/html']?.includes('<table'))).toBe(true);
    expect(displays.length).toBe(result.displays.length);
    expect(result.artifacts).toEqual([{ path: 'out.csv', bytes: 16, mime: 'text/csv', change: 'created' }]);
    expect((await t.sandbox.readFile('s1', 'out.csv')).toString()).toBe('x,y\n1,2\n2,4\n3,8\n');
  });

  it(
    'honours the display protocol: display(), IPython.display and _repr_svg_, plt.show() order',
    anyRuntime,
    async () => {
      const result = await t.sandbox.run('s1', {
        language: 'python',
        code: [
          'from IPython.display import display as ipy_display, HTML',
          'class Badge:\n    def _repr_svg_(self):\n        return "<svg/>"',
          'display("plain")',
          'ipy_display(HTML("<b>bold</b>"))',
          'import matplotlib.pyplot as plt',
          'plt.plot([1]); plt.title("first"); plt.show()',
          'print("between")',
          'plt.plot([2]); plt.title("second")',
          'Badge()',
        ].join('\n'),
      });
      expect(result.status).toBe('ok');
      const kinds = result.displays.map(
        (d) => d.meta?.title ?? d.data['text/html'] ?? d.data['image/svg+xml'] ?? d.data['text/plain'],
      );
      expect(kinds).toEqual(["'plain'", '<b>bold</b>', 'first', '<svg/>', 'second']);
    },
  );

  it('runs bash in the same /mnt/data', async () => {
    const result = await t.sandbox.run('s1', {
      language: 'bash',
      code: 'pwd; wc -l < out.csv; echo hi > from-bash.txt',
    });
    expect(result).toMatchObject({ status: 'ok', stdout: '/mnt/data\n4\n' });
    expect(result.artifacts.map((a) => a.path)).toEqual(['from-bash.txt']);
    const failed = await t.sandbox.run('s1', { language: 'bash', code: 'exit 3' });
    expect(failed.status).toBe('error');
    expect(failed.error?.value).toContain('3');
  });

  it('keeps sessions apart: files and variables', async () => {
    await t.sandbox.run('s2', { language: 'python', code: 'secret_of_s2 = 7\nopen("s2.txt","w").write("x")' });
    const probe = await t.sandbox.run('s1', {
      language: 'python',
      code: 'import os\nprint("secret_of_s2" in globals(), os.path.exists("s2.txt"), sorted(os.listdir(".")))',
    });
    expect(probe.stdout).toMatch(/^False False /);
    expect(probe.stdout).not.toContain('s2.txt');
  });

  it('exposes no host environment variable', async () => {
    const result = await t.sandbox.run('s1', {
      language: 'bash',
      code: `env; cat /proc/1/environ | tr '\\0' '\\n'; grep -r "${CANARY}" /proc/*/environ 2>/dev/null | wc -l`,
    });
    expect(result.status).toBe('ok');
    expect(result.stdout).not.toContain(CANARY);
    expect(result.stdout).not.toContain('THREADLAB_TEST_CANARY_SECRET');
    expect(result.stdout).not.toMatch(/OPENAI|SLACK|DISCORD|REDIS_URL|DOCKER_HOST/);
  });

  it('uploads, lists and previews files', async () => {
    const file = await t.sandbox.putFile('s3', '../../etc/data set.csv', Buffer.from('a,b\n1,x\n2,y\n'));
    expect(file.path).toBe('etc/data set.csv');
    const listed = await t.sandbox.listFiles('s3');
    expect(listed.map((f) => f.path)).toEqual(['etc/data set.csv']);
    const [preview, bad] = await t.sandbox.previewFiles('s3', ['etc/data set.csv', '../../etc/passwd']);
    expect(preview).toMatchObject({
      kind: 'table',
      tables: [
        {
          rows: 2,
          columns: [
            { name: 'a', dtype: 'int64' },
            { name: 'b', dtype: 'object' },
          ],
        },
      ],
    });
    expect(bad?.error).toMatch(/inside/);
    await expect(t.sandbox.readFile('s3', '../outside')).rejects.toMatchObject({ code: 'sandbox_file_rejected' });
  });

  it('reports the environment from the image', anyRuntime, async () => {
    const env = await t.sandbox.environment();
    expect(env.python).toMatch(/^3\.\d+/);
    expect(env.packages.pandas).toBeTruthy();
    expect(env.limits).toMatchObject({ memoryMb: 512, network: false, durableVariables: true });
  });
});
