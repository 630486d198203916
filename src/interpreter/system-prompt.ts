import type { FilePreview, SandboxEnvironment, SandboxFile } from '../domain/execution.js';
import { formatBytes } from '../domain/text/format.js';
import { describeLanguages } from './language-prompt.js';
import { cutHeadTail } from './text-cut.js';
import { isInternalFile } from '../domain/file-names.js';
import type { SourceSummary } from '../ports/data-sources.js';
import { sourcesPrompt } from './query/sources-prompt.js';

/** What the system prompt describes. */
export interface SystemPromptInput {
  environment: SandboxEnvironment;
  files: SandboxFile[];
  previews: FilePreview[];
  /** Paths uploaded with the current message. */
  uploaded: string[];
  /** History entries dropped from this thread's memory so far. */
  trimmedEntries: number;
  /** Most files listed by name. @defaultValue 40 */
  maxFilesListed?: number;
  /** The data sources the turn may query (names, descriptions, limits: never a connection). */
  sources?: readonly SourceSummary[];
}

const MAIN_PACKAGES = [
  'pandas',
  'numpy',
  'matplotlib',
  'scipy',
  'scikit-learn',
  'statsmodels',
  'seaborn',
  'openpyxl',
  'pyarrow',
  'sympy',
];

/** Most packages named in the prompt; the main data packages come first. */
const MAX_PACKAGES = 40;

function describePackages(packages: Record<string, string>): string {
  const names = Object.keys(packages).sort((a, b) => {
    const ia = MAIN_PACKAGES.indexOf(a);
    const ib = MAIN_PACKAGES.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  if (names.length === 0) return 'only the standard library';
  const listed = names.slice(0, MAX_PACKAGES).map((n) => `${n} ${packages[n]}`);
  if (names.length > MAX_PACKAGES)
    listed.push(`and ${names.length - MAX_PACKAGES} more (importlib.metadata lists them)`);
  return listed.join(', ');
}

/** The network line: none, or what the egress gateway allows and whether pip can install. */
function describeNetwork(network: SandboxEnvironment['limits']['network']): string {
  if (!network) return '- No network access: downloads and pip install fail.';
  const installs =
    network.packageIndexes.length > 0
      ? `pip install works against ${network.packageIndexes.join(', ')}; installed packages land in /mnt/data/.local, importable at once and kept with this thread.`
      : 'pip install cannot reach a package index.';
  const credentialed = network.credentialed?.length
    ? ` ${network.credentialed.join(', ')}: use http:// URLs; the gateway connects over TLS and adds the credentials, which are never visible here (do not look for them).`
    : '';
  return `- Network: only ${network.allowed.join(', ')} can be reached, over HTTP(S) through a proxy already set (HTTP_PROXY/HTTPS_PROXY; there are no direct sockets and no DNS); anything else is refused at once with a message naming THREADLAB_EGRESS_ALLOW. ${installs}${credentialed}`;
}

function describeEnvironment(env: SandboxEnvironment): string {
  const l = env.limits;
  return [
    `Environment (read from sandbox image ${env.imageVersion}):`,
    `- Python ${env.python} with: ${describePackages(env.packages)}. Nothing else can be installed.`,
    `- Working directory /mnt/data. Files there persist across messages of this thread; Python variables persist too, like a notebook, until the session is reset${
      l.durableVariables
        ? ', also when the sandbox is recycled, except objects that cannot be pickled (open connections and files, generators): a tool result names those'
        : '; a tool result says when they were lost'
    }. bash runs in the same /mnt/data.`,
    ...describeLanguages(env),
    describeNetwork(l.network),
    `- Limits: ${Math.round(l.timeoutMs / 1000)} s per run, ${l.memoryMb} MB memory, ${l.cpus} CPU, ${l.dataMb} MB in /mnt/data, ${l.maxFileMb} MB per file.`,
    '- Matplotlib figures and display()ed values are captured and shown to the user; files you write to /mnt/data are sent to the user.',
  ].join('\n');
}

function describePreview(p: FilePreview): string {
  if (p.error) {
    // The runner says "preview skipped: …" when it gave up on time or at a Stop; other errors are the file's.
    const error = p.error.slice(0, 500);
    return error.startsWith('preview skipped:') ? `  (${error})` : `  (preview failed: ${error})`;
  }
  const lines: string[] = [];
  for (const t of p.tables ?? []) {
    const sheet = t.sheet !== undefined ? `sheet "${t.sheet}": ` : '';
    // The runner names at most 50 columns; a hostile one could send more, so cut here too.
    const cols = t.columns
      .slice(0, 50)
      .map((c) => `${c.name.slice(0, 80)} (${c.dtype.slice(0, 40)})`)
      .join(', ');
    const total = Math.max(t.columnCount ?? 0, t.columns.length);
    const first =
      total > Math.min(50, t.columns.length)
        ? `${total} columns, the first ${Math.min(50, t.columns.length)}`
        : 'columns';
    lines.push(`  ${sheet}${t.rows} rows; ${first}: ${cols}`);
    if (t.head.trim())
      lines.push(`  first rows:\n${indent(cutHeadTail(t.head, { maxChars: 1500, headShare: 1 }).text, '    ')}`);
  }
  if (p.text)
    lines.push(
      `  ${p.kind === 'json' ? 'structure' : 'first lines'}:\n${indent(cutHeadTail(p.text, { maxChars: 1200, headShare: 1 }).text, '    ')}`,
    );
  return lines.join('\n');
}

function indent(text: string, prefix: string): string {
  return text
    .replace(/\s+$/, '')
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');
}

function describeFiles(input: SystemPromptInput): string {
  const files = input.files.filter((f) => !isInternalFile(f.path));
  if (files.length === 0) return 'Files in /mnt/data: none yet.';
  const max = input.maxFilesListed ?? 40;
  const previews = new Map(input.previews.map((p) => [p.path, p]));
  const lines = files.slice(0, max).map((f) => {
    const mark = input.uploaded.includes(f.path) ? ' [uploaded with this message]' : '';
    const preview = previews.get(f.path);
    const head = `- /mnt/data/${f.path} (${formatBytes(f.bytes)}, ${f.mime})${mark}`;
    return preview ? `${head}\n${describePreview(preview)}` : head;
  });
  if (files.length > max) lines.push(`- … and ${files.length - max} more (list them with code)`);
  return `Files in /mnt/data (previews computed in the sandbox):\n${lines.join('\n')}`;
}

/** Builds the system prompt: the role, the environment as it is, and the thread's files with previews. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const memory =
    input.trimmedEntries > 0
      ? `\nMemory: ${input.trimmedEntries} earlier entries of this conversation were trimmed to fit the memory budget; you see only the most recent part. Files and variables from that earlier work may still exist — check with code when it matters.`
      : '';
  return [
    'You are Threadlab, a code interpreter working in a chat thread. Answer by writing code, running it with the run_code tool, reading the output or error, fixing and running again until the result is verified. Compute numbers with code rather than guessing them.',
    'When done, reply with a concise final answer in Markdown without calling a tool. Refer to charts and files you produced by name; they are attached to your reply automatically. Do not paste large outputs.',
    '',
    describeEnvironment(input.environment),
    '',
    describeFiles(input),
    ...(input.sources?.length ? ['', sourcesPrompt(input.sources)] : []),
    memory,
  ]
    .join('\n')
    .trimEnd();
}
