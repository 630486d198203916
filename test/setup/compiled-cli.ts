import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What `npm run build` compiles or copies, and what decides how. */
const INPUTS = [
  'src',
  'cli',
  'adapters',
  'app',
  'sandbox',
  'bin',
  'scripts/copy-assets.mjs',
  'tsconfig.json',
  'tsconfig.build.json',
];
const STAMP = join(ROOT, 'dist', '.source-hash');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
// Outside the worktree, so a build never shows in `git status`; one lock per checkout.
const LOCK = join(tmpdir(), `threadlab-dist-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
/** A build takes seconds; a lock older than this belongs to a run that died. */
const LOCK_STALE_MS = 5 * 60_000;
const LOCK_WAIT_MS = 10 * 60_000;

/** dist/bin/threadlab.js: the compiled CLI, which child processes of the tests run. */
export const COMPILED_BIN = join(ROOT, 'dist', 'bin', 'threadlab.js');

/**
 * Builds dist/ (what `npm run build` does, from scratch) unless it was built from exactly the current sources,
 * and returns {@link COMPILED_BIN}. The sources are hashed by content, so an edit, a new file or a
 * removed one always rebuilds, and a stale dist/ is never run.
 */
export async function ensureCompiledCli(onProgress: (line: string) => void): Promise<string> {
  const hash = sourceHash();
  if (stamp() === hash && existsSync(COMPILED_BIN)) return COMPILED_BIN;
  await withLock(() => {
    if (stamp() === hash && existsSync(COMPILED_BIN)) return; // another project's set-up built it meanwhile
    const startMs = Date.now();
    rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
    // `npm run build`, in two steps: like tsx, a type error (tsc exit 2: reported, JavaScript written)
    // does not stop the tests (the typecheck step reports it); only a build that wrote nothing does.
    const tsc = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
    if (tsc.status !== 0 && tsc.status !== 2)
      throw new Error(`tsc -p tsconfig.build.json failed (exit ${tsc.status}):\n${tsc.stdout}${tsc.stderr}`);
    if (tsc.status === 2) onProgress(`type errors (the JavaScript was written all the same):\n${tsc.stdout}`);
    const copy = spawnSync(process.execPath, ['scripts/copy-assets.mjs'], { cwd: ROOT, encoding: 'utf8' });
    if (copy.status !== 0) throw new Error(`scripts/copy-assets.mjs failed (exit ${copy.status}):\n${copy.stderr}`);
    if (!existsSync(COMPILED_BIN)) throw new Error(`the build did not write ${COMPILED_BIN}`);
    writeFileSync(STAMP, hash);
    onProgress(`built dist/ in ${((Date.now() - startMs) / 1000).toFixed(1)} s`);
  });
  return COMPILED_BIN;
}

function stamp(): string | undefined {
  return existsSync(STAMP) ? readFileSync(STAMP, 'utf8') : undefined;
}

function sourceHash(): string {
  const hash = createHash('sha256');
  const visit = (path: string): void => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) if (name !== '__pycache__') visit(join(path, name));
      return;
    }
    hash.update(path.slice(ROOT.length)).update('\0').update(readFileSync(path)).update('\0');
  };
  for (const input of INPUTS) visit(join(ROOT, input));
  return hash.digest('hex');
}

/** Runs `fn` holding the build lock, so set-ups that start together build once. */
async function withLock(fn: () => void): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(LOCK, 'wx'));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() - lockMtimeMs() > LOCK_STALE_MS) rmSync(LOCK, { force: true });
      else if (Date.now() > deadline)
        throw new Error(`${LOCK} held for ${LOCK_WAIT_MS} ms; remove it if no run builds`);
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    fn();
  } finally {
    rmSync(LOCK, { force: true });
  }
}

function lockMtimeMs(): number {
  try {
    return statSync(LOCK).mtimeMs;
  } catch {
    return Date.now();
  }
}
