import { textReply, type Reply } from '../domain/reply.js';
import type { TurnBudget } from '../ports/budget.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { ConversationStore, ExportEntry } from '../ports/conversation-store.js';
import { buildNotebook } from './notebook.js';
import { MAX_MODULES, packageVersions } from './package-versions.js';
import { importedModules } from './python-imports.js';
import { buildRequirements } from './requirements.js';

/** Options of {@link exportThread}. */
export interface ExportThreadOptions {
  store: ConversationStore;
  sandbox: Sandbox;
  threadKey: string;
  signal?: AbortSignal;
  /** The requester's daily budgets: the package lookup's run time is charged like any run's. */
  budget?: TurnBudget & { notices: string[] };
  /** @defaultValue () => new Date() */
  now?: () => Date;
}

/** The name of a thread's notebook file. */
export const NOTEBOOK_NAME = 'thread.ipynb';
/** The name of its requirements file. */
export const REQUIREMENTS_NAME = 'requirements.txt';

/**
 * The `export` command: the thread's export log as a notebook and a `requirements.txt` pinned to what the
 * sandbox has installed, as a reply with the two files. A thread without successful runs gets a notice.
 */
export async function exportThread(options: ExportThreadOptions): Promise<Reply> {
  const log = await options.store.readExport(options.threadKey);
  const runs = log.entries.filter((e) => e.kind === 'run');
  if (runs.length === 0)
    return textReply(
      log.entries.length === 0 && log.dropped === 0
        ? 'Nothing to export yet: no code has run successfully in this thread.'
        : 'Nothing to export: none of the runs this thread still keeps succeeded.',
    );
  const python = runs.filter((e) => e.language === 'python');
  const modules = [...new Set(python.flatMap((e) => importedModules(e.code)))];
  const versions =
    modules.length === 0
      ? undefined
      : await packageVersions({
          sandbox: options.sandbox,
          threadKey: options.threadKey,
          modules,
          ...(options.signal ? { signal: options.signal } : {}),
        });
  if (versions) await options.budget?.charge({ runMs: versions.runMs });
  const exportedAt = (options.now ?? (() => new Date()))();
  const pythonVersion = versions && !('failed' in versions) ? versions.python : undefined;
  const notebook = buildNotebook({ log, exportedAt, ...(pythonVersion ? { python: pythonVersion } : {}) });
  const requirements = buildRequirements({ versions, modules: modules.slice(0, MAX_MODULES) });
  const codeCells = notebook.cells.filter((c) => c.cell_type === 'code').length;
  const notes = [
    `This thread as a Jupyter notebook: ${codeCells} code cells that ran successfully, with their outputs, and the messages that asked for them. \`${REQUIREMENTS_NAME}\` pins the packages the code imports.`,
  ];
  if (log.dropped)
    notes.push(`_${log.dropped} earlier entries are not in it: a thread keeps its newest entries only._`);
  if (versions && 'failed' in versions) notes.push(`⚠️ Package versions could not be read (${versions.failed}).`);
  if (versions && !('failed' in versions) && versions.packages.some((p) => p.source === 'user'))
    notes.push(
      `Some packages were installed by the thread's own code, not the sandbox image: \`${REQUIREMENTS_NAME}\` marks them \`# user-installed\`.`,
    );
  notes.push(...(options.budget?.notices ?? []));
  const saved = await queryFiles(options, runs);
  notes.push(...saved.notes);
  const reply = textReply(notes.join('\n'));
  reply.files.push(
    {
      name: NOTEBOOK_NAME,
      mime: 'application/x-ipynb+json',
      data: Buffer.from(JSON.stringify(notebook, null, 1)),
      description: 'notebook',
    },
    { name: REQUIREMENTS_NAME, mime: 'text/plain', data: Buffer.from(requirements), description: 'requirements' },
    ...saved.files,
  );
  return reply;
}

/** Most query results attached to an export, and their bytes together: the reply must stay attachable. */
export const EXPORT_QUERY_FILES = { maxFiles: 5, maxBytes: 8 * 1024 * 1024 };

/**
 * The saved CSVs of the queries the notebook loads (newest first, within {@link EXPORT_QUERY_FILES}), so it runs
 * without the database; one that is gone or over the limits is named in a note instead.
 */
async function queryFiles(
  options: ExportThreadOptions,
  runs: readonly ExportEntry[],
): Promise<{ files: Reply['files']; notes: string[] }> {
  const paths = [...new Set(runs.flatMap((r) => (r.kind === 'run' && r.queryFile ? [r.queryFile] : [])))].reverse();
  const files: Reply['files'] = [];
  const left: string[] = [];
  let bytes = 0;
  for (const path of paths) {
    const data =
      files.length < EXPORT_QUERY_FILES.maxFiles
        ? await options.sandbox.readFile(options.threadKey, path).catch(() => undefined)
        : undefined;
    if (!data || bytes + data.length > EXPORT_QUERY_FILES.maxBytes) {
      left.push(`\`${path}\``);
      continue;
    }
    bytes += data.length;
    files.push({ name: path, mime: 'text/csv', data, description: 'query result' });
  }
  const notes = left.length
    ? [
        `Not attached (gone, or past ${EXPORT_QUERY_FILES.maxFiles} files or ${EXPORT_QUERY_FILES.maxBytes / 1024 / 1024} MB): the saved query results ${left.join(', ')}; run those queries again to re-create them.`,
      ]
    : [];
  return { files, notes };
}
