import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadHash } from '../../../src/domain/thread-key.js';
import { formatToolResult } from '../../../src/interpreter/tool-result.js';
import { makeSandbox, type TestSandbox } from './helpers.js';

// Sparse files cost nothing in the container's /mnt/data but their full size once copied out; hard
// links make one file many. Scaled down from the reported attack (100 x 19 MiB, 100 MB per file): here
// 100 x 7 MiB sparse files and 30 hard links, with 8 MiB per file and 32 MiB per run.
const MIB = 1024 * 1024;
const MAX_FILE_BYTES = 8 * MIB;
const MAX_RUN_FILES_BYTES = 32 * MIB;
/** Stated bounds: what the run may add to the bot's memory and to the host disk. */
const RSS_GROWTH_BOUND_BYTES = 160 * MIB;
const DISK_GROWTH_BOUND_BYTES = MAX_RUN_FILES_BYTES + 2 * MIB;

let t: TestSandbox;
beforeAll(async () => {
  t = await makeSandbox('sparse', { maxFileBytes: MAX_FILE_BYTES, maxRunFilesBytes: MAX_RUN_FILES_BYTES });
});
afterAll(async () => {
  await t?.close();
});

/** Bytes the files under `dir` occupy on disk (allocated blocks, so sparse copies count what they use). */
async function diskBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const info = await lstat(join(entry.parentPath, entry.name));
    if (info.isFile()) total += info.blocks * 512;
  }
  return total;
}

describe('files brought back out of the sandbox', () => {
  it('brings back sparse files and hard links within the total per run, and lists the rest with why', async () => {
    await t.sandbox.run('attack', { language: 'python', code: 'warm = 1' });
    const diskBefore = await diskBytes(t.dataDir);
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
    let result;
    try {
      result = await t.sandbox.run('attack', {
        language: 'python',
        code: [
          'import os',
          'for i in range(100):',
          '    with open(f"sparse-{i:03}.bin", "wb") as f: f.truncate(7 * 1024 * 1024)',
          'with open("real.bin", "wb") as f: f.write(os.urandom(3 * 1024 * 1024))',
          'for i in range(30): os.link("real.bin", f"link-{i:02}.bin")',
        ].join('\n'),
      });
      // What a reply does next: read every file the run brought back.
      for (const artifact of result.artifacts) await t.sandbox.readFile('attack', artifact.path);
    } finally {
      clearInterval(sampler);
    }
    const rssGrowth = rssPeak - rssBefore;
    const diskGrowth = (await diskBytes(t.dataDir)) - diskBefore;
    const broughtBack = result.artifacts.reduce((n, a) => n + a.bytes, 0);
    process.stderr.write(
      `sparse-file attack (100 x 7 MiB sparse + 30 hard links, ${MAX_RUN_FILES_BYTES / MIB} MiB per run): ` +
        `${result.artifacts.length} files brought back (${(broughtBack / MIB).toFixed(1)} MiB), ` +
        `${result.skippedArtifacts?.length ?? 0} entries not brought back; ` +
        `bot peak RSS growth ${(rssGrowth / MIB).toFixed(1)} MiB (bound ${RSS_GROWTH_BOUND_BYTES / MIB}), ` +
        `host disk growth ${(diskGrowth / MIB).toFixed(1)} MiB (bound ${DISK_GROWTH_BOUND_BYTES / MIB})\n`,
    );

    expect(result.status).toBe('ok');
    expect(broughtBack).toBeLessThanOrEqual(MAX_RUN_FILES_BYTES);
    expect(diskGrowth).toBeLessThan(DISK_GROWTH_BOUND_BYTES);
    expect(rssGrowth).toBeLessThan(RSS_GROWTH_BOUND_BYTES);
    // One copy of the hard-linked file at most; the other names are listed as links.
    const paths = result.artifacts.map((a) => a.path);
    expect(paths.filter((p) => p.startsWith('link-') || p === 'real.bin').length).toBeLessThanOrEqual(1);
    const skipped = result.skippedArtifacts ?? [];
    expect(
      skipped.some(
        (s) =>
          /^sparse-\d+\.bin$/.test(s.path) && /7\.0 MiB sparse file; total per run of 32 MiB reached/.test(s.reason),
      ),
    ).toBe(true);
    expect(skipped.some((s) => s.path.startsWith('link-') && /hard link to/.test(s.reason))).toBe(true);
    // The model reads the list in its tool result.
    expect(formatToolResult(result)).toMatch(
      /- sparse-\d+\.bin: 7\.0 MiB sparse file; total per run of 32 MiB reached/,
    );
    // 100 + 30 files were not all listed: the last entry counts the rest, so nothing is dropped silently.
    const listed = skipped.length - 1;
    const rest = Number(/^(\d+) more files$/.exec(skipped.at(-1)?.path ?? '')?.[1]);
    expect(result.artifacts.length + listed + rest).toBe(131);
  });

  it("keeps a thread's host copy within the data size when every run makes new sparse files", async () => {
    const dataBytes = 64 * MIB; // testLimits' dataMb
    let last;
    for (let round = 0; round < 3; round++) {
      last = await t.sandbox.run('repeat', {
        language: 'python',
        code: `for i in range(8):\n    with open(f"r${round}-{i}.bin", "wb") as f: f.truncate(7 * 1024 * 1024)`,
      });
    }
    const mirrored = await diskBytes(join(t.dataDir, threadHash('repeat')));
    process.stderr.write(`3 runs of 8 x 7 MiB sparse files: host copy ${(mirrored / MIB).toFixed(1)} MiB (bound 64)\n`);
    expect(last?.skippedArtifacts?.some((s) => s.reason.includes('THREADLAB_SANDBOX_DATA_MB'))).toBe(true);
    expect(mirrored).toBeGreaterThan(dataBytes / 2);
    expect(mirrored).toBeLessThanOrEqual(dataBytes);
  });

  it('still brings back ordinary files whole', async () => {
    const result = await t.sandbox.run('plain', {
      language: 'python',
      code: 'import os\nopen("data.bin", "wb").write(os.urandom(6 * 1024 * 1024))\nopen("note.txt", "w").write("hello")',
    });
    expect(result.skippedArtifacts).toBeUndefined();
    expect(result.artifacts.map((a) => [a.path, a.bytes])).toEqual([
      ['data.bin', 6 * MIB],
      ['note.txt', 5],
    ]);
    expect((await t.sandbox.readFile('plain', 'data.bin')).length).toBe(6 * MIB);
    expect((await t.sandbox.readFile('plain', 'note.txt')).toString()).toBe('hello');
  });
});
