import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig, type Config } from '../../src/config/index.js';
import { parseThreadKey } from '../../src/domain/thread-key.js';
import { threadHash } from '../../src/domain/thread-key.js';
import { pseudonymiseAudit, type AuditRewrite } from '../../src/governance/retention/retention-audit.js';
import { PurgeMarks } from '../../src/governance/retention/retention-marks.js';
import { auditFilesOf } from '../../src/governance/retention/retention-audit-age.js';
import { parseDuration } from '../../src/domain/duration.js';
import { purge, type PurgeReport, type PurgeTarget } from '../../src/governance/retention/retention.js';
import { createLogger } from '../../src/logger.js';
import { createPurgeSources } from '../../app/index.js';
import { parse, type Command } from '../args.js';
import { formatPurgeReport } from './purge-report.js';

function targetOf(values: { thread?: string; user?: string; 'older-than'?: string }): PurgeTarget | string {
  const given = [values.thread, values.user, values['older-than']].filter((v) => v !== undefined);
  if (given.length !== 1) return 'purge needs exactly one of --thread KEY, --user ID or --older-than DURATION.';
  if (values.thread !== undefined) {
    try {
      parseThreadKey(values.thread);
    } catch {
      return `--thread: "${values.thread}" is not a thread key (platform:workspace:channel:thread, e.g. slack:T024BE7LD:C0123:1712345678.000100).`;
    }
    return { thread: values.thread };
  }
  if (values.user !== undefined) return values.user.trim() ? { user: values.user } : '--user: expected a user id.';
  const ms = parseDuration(values['older-than']!);
  return ms === undefined
    ? `--older-than: expected a number and a unit, m, h, d or w (e.g. 30d), got "${values['older-than']}".`
    : { olderThanMs: ms };
}

/** The threads a purge removed (keys, or hashes where a source knew only the hash). */
function purgedThreadsOf(target: PurgeTarget, report: PurgeReport): string[] {
  // A thread named by key is marked even when nothing here held it: its memory may be in a running process only.
  const named = 'thread' in target ? [target.thread] : [];
  return [...new Set([...named, ...report.removed.map((item) => item.thread)])];
}

/** Why `--audit-log` cannot be used, checked before anything is deleted; undefined when it can. */
function auditLogProblem(option: string | undefined): string | undefined {
  if (option === undefined || option === 'none') return undefined;
  if (option.trim() === '') return "--audit-log: expected the audit file's path, or none.";
  const info = statSync(resolve(option), { throwIfNoEntry: false });
  return info && !info.isFile() ? `--audit-log: ${resolve(option)} is not a file.` : undefined;
}

/** The audit file to pseudonymise in: `--audit-log`, else the configured file; undefined for none. */
function auditFileOf(option: string | undefined, config: Config): string | undefined {
  if (option === 'none') return undefined;
  if (option !== undefined) return resolve(option);
  return config.audit.destination === 'file' ? config.audit.path : undefined;
}

export const purgeCommand: Command = {
  name: 'purge',
  usage: `Usage: threadlab purge (--thread KEY | --user ID | --older-than DURATION) [--audit-log FILE|none] [--json]

Deletes threads' data and says what it removed: the host copies of their files, their saved variables,
a live sandbox container, conversation memory and export log (in Redis when REDIS_URL is set), the web
chat's history and files, and the record of who wrote in them. A running bot or CLI daemon keeping memory
in its process (no REDIS_URL) forgets the threads before it next answers for them, and the audit trail
keeps their lines with the names of their files replaced by pseudonyms.
  --thread KEY          one thread (platform:workspace:channel:thread, as the logs and audit trail name it)
  --user ID             the threads only this user wrote in (threads shared with others are listed, not
                        removed: purge them with --thread); the user's audit lines keep everything but
                        their identity, which becomes a pseudonym
  --older-than DURATION every thread untouched for this long (30d, 12h, 90m, 2w); threads with a live
                        sandbox container are left (their files would be written back)
  --audit-log FILE|none the audit file to pseudonymise the user and the threads' file names in, with its
                        rotated files (FILE.1 …);
                        default: THREADLAB_AUDIT_LOG's file (<THREADLAB_DATA_DIR>/audit.jsonl unless set);
                        none: leave the audit trail as it is
  --json                print the report as JSON
Exit status: 0 when every source was purged, 1 when one failed (the report says which), 2 on bad usage.`,
  async run(argv, io) {
    const { values } = parse(
      argv,
      {
        thread: { type: 'string' },
        user: { type: 'string' },
        'older-than': { type: 'string' },
        'audit-log': { type: 'string' },
        json: { type: 'boolean' },
      },
      'purge',
    );
    if (values.help) return (io.out(`${this.usage}\n`), 0);
    const target = targetOf(values);
    const usageProblem = typeof target === 'string' ? target : auditLogProblem(values['audit-log']);
    if (usageProblem !== undefined || typeof target === 'string') {
      io.err(`${usageProblem}\nRun \`threadlab purge --help\` for usage.\n`);
      return 2;
    }
    const config = loadConfig(io.env);
    const logger = createLogger({ level: 'warn', secrets: config.secrets });
    const retention = await createPurgeSources(config, logger);
    const auditFile = auditFileOf(values['audit-log'], config);
    let report: PurgeReport;
    let audit: (AuditRewrite & { files: string[] }) | undefined;
    try {
      // The timed sweep's rule: a thread with a live container is left, or the bot would write it back.
      const live = 'olderThanMs' in target ? await retention.liveHashes() : undefined;
      report = await purge(target, {
        sources: retention.sources,
        participants: retention.participants,
        ...(live ? { idle: { keep: (hash) => live.has(hash) } } : {}),
      });
      const purgedThreads = purgedThreadsOf(target, report);
      if (!retention.memoryReachable && purgedThreads.length > 0) {
        // The memory of these threads lives in a running process: it honours the marks before it answers.
        try {
          await new PurgeMarks(config.dataDir).mark(purgedThreads);
        } catch (err) {
          report.failures.push({ source: 'purge marks', error: (err as Error).message });
        }
      }
      if (!('olderThanMs' in target) && auditFile) {
        // The threads are gone by now: a trail that cannot be rewritten is reported with them, not instead.
        try {
          audit = await pseudonymiseAudit(await auditFilesOf(auditFile), {
            ...('user' in target ? { user: target.user } : {}),
            threadHashes: new Set(purgedThreads.map((t) => (/^[0-9a-f]{24}$/.test(t) ? t : threadHash(t)))),
          });
        } catch (err) {
          report.failures.push({ source: 'audit trail', error: `${auditFile}: ${(err as Error).message}` });
        }
      }
    } finally {
      await retention.close();
    }
    const notes = retention.memoryReachable
      ? []
      : [
          'Conversation memory is not in Redis (no REDIS_URL): it lives in the running bot (or CLI daemon) process, which forgets these threads before it next answers for them (a purge mark in THREADLAB_DATA_DIR/purged).',
        ];
    if (!('olderThanMs' in target) && !auditFile)
      notes.push(
        values['audit-log'] === 'none'
          ? '--audit-log none: audit lines were not pseudonymised.'
          : `THREADLAB_AUDIT_LOG is ${config.audit.destination}: no audit file here to pseudonymise; give --audit-log FILE if lines were written to one.`,
      );
    io.out(
      values.json
        ? `${JSON.stringify({ ...report, ...(audit ? { audit } : {}), notes }, null, 2)}\n`
        : formatPurgeReport(report, audit, notes),
    );
    return report.failures.length > 0 ? 1 : 0;
  },
};
