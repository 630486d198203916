import { z } from 'zod';
import type { ExecutionResult } from '../domain/execution.js';
import type { Sandbox } from '../ports/sandbox.js';

/** Where a module was found: the sandbox image's own packages, or the thread's `/mnt/data/.local`. */
export type PackageSource = 'image' | 'user';

/** What the sandbox says about the modules the code imports. */
export interface PackageVersions {
  /**
   * Distributions providing the modules, with their installed versions: `version` is the public one, `installed`
   * the full one where a distro build added a local label, `source` where the module itself was found (a
   * distribution counts only when its metadata sits in that same directory).
   */
  packages: { name: string; version: string; modules: string[]; source: PackageSource; installed?: string }[];
  /** Modules that are neither standard library nor an installed distribution (a local file, a typo). */
  unknown: string[];
  /** The sandbox's Python version. */
  python: string;
}

/** Why the versions could not be read (the run failed, its answer was not as expected): said in the files. */
export interface VersionsUnavailable {
  failed: string;
}

/** Most module names asked about in one export. */
export const MAX_MODULES = 200;
/** Longest answer read from the sandbox, in bytes: it is hostile until parsed. */
const MAX_ANSWER_BYTES = 256 * 1024;

const MODULE = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;
/** A distribution name and version as PEP 508/440 spell them; anything else is not written into requirements.txt. */
const DIST = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const VERSION = /^[A-Za-z0-9][A-Za-z0-9.+!_-]{0,63}$/;

/**
 * Reads package metadata only, in `python3 -I` (no user site, no PYTHONPATH, no current directory: no `.pth` file of
 * the thread runs, nothing is imported). Each module is first located as the kernel would import it (the image's
 * standard library, then `/mnt/data/.local`, which the kernel puts ahead of the image's site directories, then those):
 * `PathFinder.find_spec` finds the file without running it. Its distribution is then looked for in that same directory
 * only: one whose `top_level.txt` or RECORD names the module, else (Debian's python3-* lack RECORD) one named like
 * the module or in a table of well-known names. A `*.dist-info` the thread wrote claiming a module that is really
 * imported from the image is thus never read. Module names come as arguments, checked against MODULE first.
 */
const SCRIPT = [
  'import json, sys',
  'from importlib import metadata',
  'from importlib.machinery import PathFinder',
  'USER = "/mnt/data/.local/lib/python%d.%d/site-packages" % sys.version_info[:2]',
  'SITE = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]',
  'SEARCH = [p for p in sys.path if p and p not in SITE] + [USER] + SITE',
  'KNOWN = {"sklearn": "scikit-learn", "PIL": "pillow", "cv2": "opencv-python", "bs4": "beautifulsoup4",',
  '  "yaml": "PyYAML", "dateutil": "python-dateutil", "docx": "python-docx", "pptx": "python-pptx",',
  '  "skimage": "scikit-image", "Crypto": "pycryptodome", "attr": "attrs"}',
  'def root_of(name):',
  '    try:',
  '        spec = PathFinder.find_spec(name, SEARCH)',
  '    except Exception:',
  '        return None',
  '    if spec is None:',
  '        return None',
  '    where = spec.origin if spec.has_location else None',
  '    if not where and spec.submodule_search_locations:',
  '        where = list(spec.submodule_search_locations)[0] + "/"',
  '    for path in SEARCH:',
  '        if where and where.startswith(path.rstrip("/") + "/"):',
  '            return path',
  '    return None',
  'def names(dist):',
  '    declared = (dist.read_text("top_level.txt") or "").split()',
  '    return set(declared) | {str(f).split("/")[0].split(".")[0] for f in (dist.files or [])}',
  'def norm(name):',
  '    return (name or "").lower().replace("_", "-")',
  'def owner(name, root):',
  '    dists = list(metadata.distributions(path=[root]))',
  '    alike = {norm(name), norm(KNOWN.get(name))} - {""}',
  '    return next((d for d in dists if name in names(d)), None) or next((d for d in dists if norm(d.metadata["Name"]) in alike), None)',
  'found, unknown = {}, []',
  'for name in sys.argv[1:]:',
  '    if name in sys.stdlib_module_names or name in sys.builtin_module_names:',
  '        continue',
  '    root = root_of(name)',
  '    dist = owner(name, root) if root else None',
  '    if dist is None or not dist.metadata["Name"]:',
  '        unknown.append(name)',
  '        continue',
  '    entry = found.setdefault((dist.metadata["Name"], root == USER), {"version": dist.version, "modules": []})',
  '    entry["modules"].append(name)',
  'print(json.dumps({"python": sys.version.split()[0], "unknown": unknown, "packages": [',
  '  dict(name=k[0], source="user" if k[1] else "image", **v) for k, v in sorted(found.items(), key=lambda kv: kv[0][0].lower())]}))',
].join('\n');

const Answer = z.object({
  python: z.string().max(64),
  unknown: z.array(z.string().max(100)).max(MAX_MODULES),
  packages: z
    .array(
      z.object({
        name: z.string(),
        version: z.string(),
        modules: z.array(z.string().max(100)).max(MAX_MODULES),
        source: z.enum(['image', 'user']),
      }),
    )
    .max(MAX_MODULES),
});

/**
 * The public part of a version: a distro build's local label (`2.2.3+dfsg`) is not on any package index, and
 * `pandas==2.2.3+dfsg` could never be installed from one.
 */
function publicVersion(version: string): string {
  return version.split('+')[0]!;
}

/** Options of {@link packageVersions}. */
export interface PackageVersionsOptions {
  sandbox: Sandbox;
  threadKey: string;
  /** Top-level module names (from {@link importedModules}); invalid names are ignored, at most MAX_MODULES. */
  modules: string[];
  signal?: AbortSignal;
  /** @defaultValue the sandbox's run limit (THREADLAB_SANDBOX_TIMEOUT_MS), as for any run */
  timeoutMs?: number;
}

/**
 * Asks the thread's sandbox which installed distributions provide `modules`, and their versions: one internal
 * bash run of `python3 -I -c`, which the sandbox starts in a fresh process of its own, outside the thread's kernel
 * and environment (sandbox/image/runner/isolated.py), under the limits of any run; it neither advances the
 * execution count nor touches the thread's variables. Its duration is returned for the caller to count. A run that
 * fails or answers nonsense is {@link VersionsUnavailable}; only sandbox infrastructure failures throw.
 */
export async function packageVersions(
  options: PackageVersionsOptions,
): Promise<(PackageVersions | VersionsUnavailable) & { runMs: number }> {
  const modules = [...new Set(options.modules.filter((m) => MODULE.test(m)))].slice(0, MAX_MODULES).sort();
  const code = `python3 -I -c '${SCRIPT}' ${modules.join(' ')}`;
  const result = await options.sandbox.run(options.threadKey, {
    language: 'bash',
    code,
    internal: true,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { ...readAnswer(result, modules), runMs: result.durationMs };
}

/** The lookup's answer, checked: hostile until parsed, and only what was asked about is kept. */
function readAnswer(result: ExecutionResult, modules: string[]): PackageVersions | VersionsUnavailable {
  if (result.status !== 'ok') return { failed: `the lookup ended with ${result.status}` };
  if (Buffer.byteLength(result.stdout) > MAX_ANSWER_BYTES) return { failed: 'the answer was too large' };
  let parsed: z.infer<typeof Answer>;
  try {
    parsed = Answer.parse(JSON.parse(result.stdout.trim()));
  } catch {
    return { failed: 'the answer was not what was expected' };
  }
  const asked = new Set(modules);
  return {
    python: VERSION.test(parsed.python) ? parsed.python : 'unknown',
    unknown: parsed.unknown.filter((m) => asked.has(m)),
    packages: parsed.packages
      .filter((p) => DIST.test(p.name) && VERSION.test(p.version))
      .map((p) => ({
        name: p.name,
        version: publicVersion(p.version),
        modules: p.modules.filter((m) => asked.has(m)),
        source: p.source,
        ...(publicVersion(p.version) !== p.version ? { installed: p.version } : {}),
      })),
  };
}
