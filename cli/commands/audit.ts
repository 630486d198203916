import type { Command } from '../args.js';
import { parse } from '../args.js';
import { loadConfig } from '../../src/config/index.js';
import { ThreadlabError } from '../../src/domain/errors.js';
import { auditFilesOldestFirst } from '../../src/governance/audit/audit-file.js';
import { matchesAudit, parseSince, readAuditFiles, type AuditFilter } from '../../src/governance/audit/audit-read.js';
import { AUDIT_KINDS } from '../../src/governance/audit/audit-record.js';
import { auditLineText } from '../../src/governance/audit/audit-text.js';

const usage = `Usage: threadlab audit [--user ID] [--thread KEY] [--since WHEN] [--kind KIND] [--json] [--file PATH]

Prints the audit trail (THREADLAB_AUDIT_LOG), oldest first, rotated files included: one line per run
of code, model call, egress request, approval decision and model turn's answer, with who, where, the
thread, the code's hash and size, the language, status, duration, tokens, the files in and out, and
how many of an answer's figures were found in run output.

  --user ID      only lines of this platform user id (or pseudonym)
  --thread KEY   only lines of this thread (its egress lines too, matched by the key's hash)
  --since WHEN   only lines from WHEN on: an ISO 8601 date or time, or a duration back (90m, 12h, 7d)
  --kind KIND    run, model_call, egress, approval, answer or schedule
  --json         the lines as JSON, one per line, as written
  --file PATH    read this file (and its rotated PATH.1 …) instead of the configured one`;

function refuse(message: string): never {
  throw new ThreadlabError('config_invalid', `${message}\nRun \`threadlab audit --help\` for usage.`, {
    isPolicy: true,
  });
}

export const auditCommand: Command = {
  name: 'audit',
  usage,
  async run(argv, io) {
    const { values, positionals } = parse(
      argv,
      {
        user: { type: 'string' },
        thread: { type: 'string' },
        since: { type: 'string' },
        kind: { type: 'string' },
        json: { type: 'boolean' },
        file: { type: 'string' },
      },
      'audit',
    );
    if (values.help) return (io.out(`${this.usage}\n`), 0);
    if (positionals.length > 0) refuse(`Unexpected argument "${positionals[0]}".`);
    const filter: AuditFilter = {};
    if (values.user !== undefined) filter.user = values.user;
    if (values.thread !== undefined) filter.thread = values.thread;
    if (values.kind !== undefined) {
      if (!(AUDIT_KINDS as readonly string[]).includes(values.kind))
        refuse(`--kind: expected ${AUDIT_KINDS.join(', ')} (got "${values.kind}").`);
      filter.kind = values.kind;
    }
    if (values.since !== undefined) {
      const sinceMs = parseSince(values.since, Date.now());
      if (sinceMs === undefined)
        refuse(
          `--since: expected an ISO date such as 2025-01-31, or a duration such as 12h or 7d (got "${values.since}").`,
        );
      filter.sinceMs = sinceMs;
    }
    const config = loadConfig(io.env);
    let path = values.file;
    if (path === undefined) {
      if (config.audit.destination !== 'file')
        refuse(
          `THREADLAB_AUDIT_LOG=${config.audit.destination}: there is no audit file to read. Pass --file PATH, or read the lines where stdout went.`,
        );
      path = config.audit.path;
    }
    let unreadable = 0;
    let shown = 0;
    for await (const read of readAuditFiles(auditFilesOldestFirst(path, config.audit.keepFiles))) {
      if (!read.ok) {
        unreadable += 1;
        continue;
      }
      if (!matchesAudit(read.line, filter)) continue;
      shown += 1;
      io.out(`${values.json ? JSON.stringify(read.line) : auditLineText(read.line)}\n`);
    }
    if (unreadable > 0) io.err(`${unreadable} line(s) in ${path}* were not audit lines and were skipped.\n`);
    if (shown === 0 && !values.json) io.err('No audit lines matched.\n');
    return 0;
  },
};
