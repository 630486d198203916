import type { PackageVersions, VersionsUnavailable } from './package-versions.js';

/**
 * `requirements.txt` for the exported notebook: one `name==version` line per distribution the Python cells
 * import, as installed in the thread's sandbox; modules found nowhere, and why versions are missing, as comments.
 */
export function buildRequirements(options: {
  versions: PackageVersions | VersionsUnavailable | undefined;
  /** The non-standard-library candidates the code imports (what was asked). */
  modules: string[];
}): string {
  const { versions, modules } = options;
  const lines = [
    "# Packages the notebook's Python code imports, pinned to the versions installed in the thread's sandbox.",
  ];
  if (!versions) {
    lines.push('# The code imports no packages beyond the standard library.');
    return `${lines.join('\n')}\n`;
  }
  if ('failed' in versions) {
    lines.push(`# The installed versions could not be read (${versions.failed}); the imported modules, unpinned:`);
    // Module names are checked identifiers (package-versions.ts): safe as lines, though not always the dist name.
    lines.push(...modules.map((m) => `# ${m}`));
    return `${lines.join('\n')}\n`;
  }
  lines.push(`# Python ${versions.python}`);
  for (const p of versions.packages)
    lines.push(`${p.name}==${p.version}${p.installed ? `  # installed: ${p.installed}, a distro build` : ''}`);
  if (versions.unknown.length)
    lines.push(
      `# Imported but not an installed package (a module file of the thread, or not installed): ${versions.unknown.join(', ')}`,
    );
  return `${lines.join('\n')}\n`;
}
