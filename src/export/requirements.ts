import type { PackageVersions, VersionsUnavailable } from './package-versions.js';

/**
 * `requirements.txt` for the exported notebook: one `name==version` line per distribution the Python cells
 * import, as installed in the thread's sandbox: the image's first, then those the thread installed itself under a
 * comment saying so (each marked `# user-installed`); modules found nowhere, and why versions are missing, as
 * comments.
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
  const pin = (p: PackageVersions['packages'][number], note = ''): string =>
    `${p.name}==${p.version}${p.installed ? `  # installed: ${p.installed}, a distro build` : note}`;
  for (const p of versions.packages.filter((p) => p.source === 'image')) lines.push(pin(p));
  const user = versions.packages.filter((p) => p.source === 'user');
  if (user.length) {
    // Their names and versions are what the thread's code wrote there: whoever installs them should look first.
    lines.push(
      "# Installed by the thread's own code into /mnt/data/.local, not part of the sandbox image; check these names before installing:",
    );
    for (const p of user) lines.push(pin(p, '  # user-installed'));
  }
  if (versions.unknown.length)
    lines.push(
      `# Imported but not an installed package (a module file of the thread, or not installed): ${versions.unknown.join(', ')}`,
    );
  return `${lines.join('\n')}\n`;
}
