import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** Debian's python3, where python3-nbformat lands (scripts/ensure-tools.sh installs it). */
const PYTHON = '/usr/bin/python3';
const VALIDATE = 'import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))';

/**
 * Validates notebook bytes with nbformat's own reader and JSON-schema validator, as the issue says; rejects with
 * the validator's message when they are not a valid nbformat 4 notebook.
 */
export async function validateNotebook(data: Buffer | string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'threadlab-nb-'));
  try {
    const path = join(dir, 'thread.ipynb');
    await writeFile(path, data);
    await run(PYTHON, ['-c', VALIDATE, path], { timeout: 30_000 }).catch((err: { stderr?: string }) => {
      throw new Error(`nbformat rejected the notebook: ${err.stderr ?? String(err)}`);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
