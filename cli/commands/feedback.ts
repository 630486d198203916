import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../src/config/index.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import {
  DEFAULT_COMMENTS_PER_MODEL,
  FeedbackSummer,
  type FeedbackSummary,
} from '../../src/feedback/feedback-summary.js';
import { auditFilesOldestFirst } from '../../src/governance/audit/audit-file.js';
import { parseSince, readAuditFiles } from '../../src/governance/audit/audit-read.js';
import { escapeControls } from '../../src/governance/audit/audit-text.js';

const usage = `Usage: threadlab feedback [--since WHEN] [--comments N] [--json] [--file PATH]

Compares the models in use from the audit trail (THREADLAB_AUDIT_LOG): per model, the answers it gave, how
many were rated, 👍 and 👎 (each person's last verdict on an answer: a changed one counts once) and the share
positive, with the newest comments readers left.

  --since WHEN    only from WHEN on: an ISO 8601 date or time, or a duration back (90m, 12h, 7d)
  --comments N    comments listed per model, newest first (0 to 100; default ${DEFAULT_COMMENTS_PER_MODEL})
  --json          the summary as one JSON object
  --file PATH     read this file (and its rotated PATH.1 …) instead of the configured one

Exits 2 for a bad option, or an audit file that is missing or cannot be read.`;

function refuse(message: string): never {
  throw new ThreadlabError('config_invalid', `${message}\nRun \`threadlab feedback --help\` for usage.`, {
    isPolicy: true,
  });
}

export const feedbackCommand: Command = {
  name: 'feedback',
  usage,
  async run(argv, io) {
    const { values, positionals } = parse(
      argv,
      { since: { type: 'string' }, comments: { type: 'string' }, json: { type: 'boolean' }, file: { type: 'string' } },
      'feedback',
    );
    if (values.help) return (io.out(`${this.usage}\n`), 0);
    if (positionals.length > 0) refuse(`Unexpected argument "${positionals[0]}".`);
    let sinceMs: number | undefined;
    if (values.since !== undefined) {
      sinceMs = parseSince(values.since, Date.now());
      if (sinceMs === undefined)
        refuse(
          `--since: expected an ISO date such as 2025-01-31, or a duration such as 12h or 7d (got "${values.since}").`,
        );
    }
    const comments = values.comments === undefined ? DEFAULT_COMMENTS_PER_MODEL : Number(values.comments);
    if (!Number.isInteger(comments) || comments < 0 || comments > 100)
      refuse(`--comments: expected a whole number from 0 to 100 (got "${values.comments}").`);
    const config = loadConfig(io.env);
    const path = values.file ?? (config.audit.destination === 'file' ? config.audit.path : undefined);
    if (path === undefined)
      refuse(`THREADLAB_AUDIT_LOG=${config.audit.destination}: there is no audit file to read. Pass --file PATH.`);
    await checkReadable(path, values.file === undefined);
    const summer = new FeedbackSummer({ commentsPerModel: comments });
    try {
      for await (const read of readAuditFiles(auditFilesOldestFirst(path, config.audit.keepFiles))) {
        if (!read.ok) continue;
        if (sinceMs !== undefined && !(Date.parse(read.line.ts) >= sinceMs)) continue;
        summer.add(read.line);
      }
    } catch (err) {
      refuse(`Could not read the audit trail at ${path}*: ${(err as Error).message}.`);
    }
    const summary = summer.summary();
    io.out(values.json ? `${JSON.stringify(summary)}\n` : summaryText(summary));
    return 0;
  },
};

/** Refuses (exit 2) an audit file that is missing, a directory or not readable, saying what to do. */
async function checkReadable(path: string, configured: boolean): Promise<void> {
  const where = configured ? `${path} (THREADLAB_AUDIT_LOG, or its default in THREADLAB_DATA_DIR)` : path;
  let code: string | undefined;
  const isFile = await stat(path).then(
    (found) => found.isFile(),
    (err: NodeJS.ErrnoException) => ((code = err.code), false),
  );
  if (code === undefined && !isFile) refuse(`${where} is not a file: pass the audit file itself with --file PATH.`);
  if (code === undefined) await access(path, constants.R_OK).catch((err: NodeJS.ErrnoException) => (code = err.code));
  if (code === 'ENOENT')
    refuse(
      configured
        ? `There is no audit file at ${where} yet: Threadlab writes it as it answers. Pass --file PATH to read another.`
        : `There is no audit file at ${where}.`,
    );
  if (code !== undefined)
    refuse(`${where} cannot be read (${code}): run threadlab feedback as the user Threadlab runs as.`);
}

/** The summary as a table per model, then each model's comments. */
export function summaryText(summary: FeedbackSummary): string {
  if (summary.models.length === 0) return 'No answers or feedback in the audit trail for this period.\n';
  const header = ['model', 'answers', 'rated', '👍', '👎', 'positive'];
  const rows = summary.models.map((m) => [
    escapeControls(m.model),
    String(m.answers),
    String(m.rated),
    String(m.good),
    String(m.bad),
    m.positiveShare === null ? '-' : `${Math.round(m.positiveShare * 100)} %`,
  ]);
  const widths = header.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...r[i]!].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(header), ...rows.map(line)];
  for (const m of summary.models) {
    if (m.comments.length === 0) continue;
    out.push('', `Comments on ${escapeControls(m.model)}:`);
    for (const c of m.comments)
      out.push(
        `  ${c.ts}  ${c.verdict === 'good' ? '👍' : '👎'}  ${escapeControls(c.user ?? '-')}: ${escapeControls(c.comment)}`,
      );
    if (m.commentsMore > 0) out.push(`  … ${m.commentsMore} more (--comments N, or threadlab audit --kind feedback)`);
  }
  if (summary.notCounted > 0)
    out.push('', `${summary.notCounted} feedback line(s) were past the summary's bounds and not counted.`);
  return `${out.join('\n')}\n`;
}
