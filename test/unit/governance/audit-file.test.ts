import { chmodSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditFilesOldestFirst, FileAuditLog } from '../../../src/governance/audit/audit-file.js';
import { readAuditFiles } from '../../../src/governance/audit/audit-read.js';
import type { AuditRecord } from '../../../src/governance/audit/audit-record.js';
import { egressRecord } from '../../support/audit-fixture.js';
import { recordingLogger } from '../../support/recording-logger.js';

const record = (n: number): AuditRecord => egressRecord(`U${n}`, 1_700_000_000_000 + n, n);

const dir = () => mkdtempSync(join(tmpdir(), 'audit-file-'));

describe('FileAuditLog', () => {
  it('creates the file private (0600) in a private directory, and narrows one found wider', () => {
    const path = join(dir(), 'sub', 'audit.jsonl');
    const log = new FileAuditLog({ path, maxBytes: 1 << 20, keepFiles: 2, logger: recordingLogger().logger });
    log.write(record(1));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    log.close();

    const wide = join(dir(), 'audit.jsonl');
    writeFileSync(wide, '');
    chmodSync(wide, 0o644);
    new FileAuditLog({ path: wide, maxBytes: 1 << 20, keepFiles: 2, logger: recordingLogger().logger }).write(
      record(2),
    );
    expect(statSync(wide).mode & 0o777).toBe(0o600);
  });

  it('rotates past maxBytes and keeps at most keepFiles rotated files, saying what it deleted', async () => {
    const folder = dir();
    const path = join(folder, 'audit.jsonl');
    const { lines, logger } = recordingLogger();
    const lineBytes = JSON.stringify(record(100)).length + 1;
    const log = new FileAuditLog({ path, maxBytes: lineBytes * 10, keepFiles: 3, logger });
    for (let n = 100; n < 200; n += 1) log.write(record(n));
    expect(readdirSync(folder).sort()).toEqual(['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2', 'audit.jsonl.3']);
    for (const name of readdirSync(folder)) {
      expect(statSync(join(folder, name)).size).toBeLessThanOrEqual(lineBytes * 10);
      expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);
    }
    // Read back oldest first: the newest 40 lines, in order, none torn.
    const read: number[] = [];
    for await (const r of readAuditFiles(auditFilesOldestFirst(path, 3))) if (r.ok) read.push(Number(r.line.bytesUp));
    expect(read).toEqual(Array.from({ length: 40 }, (_, i) => 160 + i));
    const drops = lines.filter((l) => String(l.msg).startsWith('oldest audit file deleted'));
    expect(drops).toHaveLength(6);
    expect(drops[0]).toMatchObject({ bytes: lineBytes * 10 });
  });

  it('reopens the path when the file was moved away from under it (logrotate)', () => {
    const folder = dir();
    const path = join(folder, 'audit.jsonl');
    const log = new FileAuditLog({ path, maxBytes: 1 << 20, keepFiles: 1, logger: recordingLogger().logger });
    log.write(record(1));
    renameSync(path, join(folder, 'moved'));
    log.write(record(2));
    expect(readFileSync(path, 'utf8')).toContain('"U2"');
    expect(readFileSync(join(folder, 'moved'), 'utf8')).not.toContain('"U2"');
  });

  it('never throws when it cannot write, and logs every lost line with the count', () => {
    const folder = dir();
    writeFileSync(join(folder, 'file'), '');
    const { lines, logger } = recordingLogger();
    // A path under a regular file can never be created.
    const log = new FileAuditLog({
      path: join(folder, 'file', 'audit.jsonl'),
      maxBytes: 1 << 20,
      keepFiles: 1,
      logger,
    });
    expect(() => log.write(record(1))).not.toThrow();
    log.write(record(2));
    expect(lines.filter((l) => l.level === 50).map((l) => l.lostLines)).toEqual([1, 2]);
  });
});
