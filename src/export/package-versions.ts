import { z } from 'zod';
import type { Sandbox } from '../ports/sandbox.js';

/** What the sandbox says about the modules the code imports. */
export interface PackageVersions {
  /**
   * Distributions providing the modules, with their installed versions (image and `/mnt/data/.local` alike):
   * `version` is the public one, `installed` the full one where a distro build added a local label.
   */
  packages: { name: string; version: string; modules: string[]; installed?: string }[];
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
 * Reads package metadata only: `packages_distributions()` maps top-level modules to distributions and
 * `version()` reads their METADATA. Distro-built packages (Debian's python3-*) often lack the RECORD that mapping
 * reads, so a module is then looked up as a distribution of its own name, then in a table of well-known names.
 * Nothing of the user's code runs and nothing is imported, in a process of its own: the thread's variables are
 * untouched. Module names come as arguments, checked against MODULE first.
 */
const SCRIPT = [
  'import json, sys',
  'from importlib import metadata',
  'KNOWN = {"sklearn": "scikit-learn", "PIL": "pillow", "cv2": "opencv-python", "bs4": "beautifulsoup4",',
  '  "yaml": "PyYAML", "dateutil": "python-dateutil", "docx": "python-docx", "pptx": "python-pptx",',
  '  "skimage": "scikit-image", "Crypto": "pycryptodome", "attr": "attrs"}',
  'dists = metadata.packages_distributions()',
  'def owners(name):',
  '    for candidate in [*dists.get(name, []), name, name.replace("_", "-"), KNOWN.get(name)]:',
  '        if not candidate:',
  '            continue',
  '        try:',
  '            dist = metadata.distribution(candidate)',
  '        except Exception:',
  '            continue',
  '        return [(dist.metadata["Name"] or candidate, dist.version)]',
  '    return []',
  'found, unknown = {}, []',
  'for name in sys.argv[1:]:',
  '    if name in sys.stdlib_module_names or name in sys.builtin_module_names:',
  '        continue',
  '    hits = owners(name)',
  '    if not hits:',
  '        unknown.append(name)',
  '    for owner, version in hits:',
  '        found.setdefault(owner, {"version": version, "modules": []})["modules"].append(name)',
  'print(json.dumps({"python": sys.version.split()[0], "unknown": unknown,',
  '  "packages": [dict(name=k, **v) for k, v in sorted(found.items(), key=lambda kv: kv[0].lower())]}))',
].join('\n');

const Answer = z.object({
  python: z.string().max(64),
  unknown: z.array(z.string().max(100)).max(MAX_MODULES),
  packages: z
    .array(z.object({ name: z.string(), version: z.string(), modules: z.array(z.string().max(100)).max(MAX_MODULES) }))
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
  /** @defaultValue 30_000 */
  timeoutMs?: number;
}

/**
 * Asks the thread's sandbox which installed distributions provide `modules`, and their versions: one internal
 * bash run of `python3 -c` (it neither advances the execution count nor touches the thread's variables).
 * A run that fails or answers nonsense is {@link VersionsUnavailable}; only sandbox infrastructure failures throw.
 */
export async function packageVersions(options: PackageVersionsOptions): Promise<PackageVersions | VersionsUnavailable> {
  const modules = [...new Set(options.modules.filter((m) => MODULE.test(m)))].slice(0, MAX_MODULES).sort();
  const code = `python3 -c '${SCRIPT}' ${modules.join(' ')}`;
  const result = await options.sandbox.run(options.threadKey, {
    language: 'bash',
    code,
    internal: true,
    timeoutMs: options.timeoutMs ?? 30_000,
    ...(options.signal ? { signal: options.signal } : {}),
  });
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
        ...(publicVersion(p.version) !== p.version ? { installed: p.version } : {}),
      })),
  };
}
