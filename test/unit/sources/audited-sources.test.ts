import { describe, expect, it } from 'vitest';
import { auditedSources } from '../../../src/governance/audit/audited-sources.js';
import { AUDIT_MAX_SQL_CHARS, type AuditRecord } from '../../../src/governance/audit/audit-record.js';
import { withAuditScope } from '../../../src/governance/audit/audit-scope.js';
import type { AuditLog } from '../../../src/governance/audit/audit-log.js';
import { MemoryDataSources, salesSource } from '../../fakes/memory-data-sources.js';

const THREAD = 'slack:T1:C1:1700000000.000100';
const scope = { platform: 'slack', user: 'U1', place: 'C1' };

function recorder(): { log: AuditLog; lines: AuditRecord[] } {
  const lines: AuditRecord[] = [];
  return { lines, log: { write: (r: AuditRecord) => void lines.push(r) } as unknown as AuditLog };
}

describe('the query audit line', () => {
  it('names the person, place, source, SQL, rows, bytes, time and outcome of each query', async () => {
    const { log, lines } = recorder();
    const sources = auditedSources(new MemoryDataSources([salesSource()]), log);
    await withAuditScope({ user: 'U1', thread: THREAD, job: 'j1' }, async () => {
      await sources.query({ source: 'sales', sql: 'SELECT region, sum(amount) FROM orders GROUP BY 1', scope });
      await sources.query({ source: 'sales', sql: 'DELETE FROM orders', scope });
      await sources.query({ source: 'nope', sql: 'SELECT 1', scope });
    });
    expect(lines.map((l) => l.kind)).toEqual(['query', 'query', 'query']);
    expect(lines[0]).toMatchObject({
      user: 'U1',
      platform: 'slack',
      channel: 'C1',
      thread: THREAD,
      job: 'j1',
      source: 'sales',
      sql: 'SELECT region, sum(amount) FROM orders GROUP BY 1',
      outcome: 'ok',
      rows: 2,
      cut: null,
    });
    expect(lines[0]!.kind === 'query' && lines[0]!.bytes).toBeGreaterThan(0);
    expect(lines[1]).toMatchObject({ outcome: 'refused', rows: 0, bytes: 0 });
    expect(lines[2]).toMatchObject({ outcome: 'unknown_source', source: 'nope' });
  });

  it('bounds the SQL it keeps and hashes all of it', async () => {
    const { log, lines } = recorder();
    const sources = auditedSources(new MemoryDataSources([salesSource()]), log);
    const sql = `SELECT 1 -- ${'x'.repeat(AUDIT_MAX_SQL_CHARS * 2)}`;
    await sources.query({ source: 'sales', sql, scope });
    const line = lines[0]!;
    expect(line.kind === 'query' && line.sql.length).toBe(AUDIT_MAX_SQL_CHARS);
    expect(line).toMatchObject({ sqlChars: sql.length, user: 'U1' });
  });
});

describe('threadlab audit shows a query line', () => {
  it('as the source, outcome, time, rows and the SQL on one line, controls escaped', async () => {
    const { auditLineText } = await import('../../../src/governance/audit/audit-text.js');
    const { log, lines } = recorder();
    const sources = auditedSources(new MemoryDataSources([salesSource()]), log);
    await sources.query({ source: 'sales', sql: 'SELECT region\n  FROM orders\u001b[2J', scope });
    const text = auditLineText(JSON.parse(JSON.stringify(lines[0])));
    expect(text).toMatch(
      / query +U1 {2}# {2}sales ok 7 ms {2}rows 2 \(\d+ B\) {2}sql "SELECT region FROM orders\\\\u001b\[2J"$/,
    );
  });
});
