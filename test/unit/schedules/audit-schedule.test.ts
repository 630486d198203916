import { describe, expect, it } from 'vitest';
import { formatAuditLine, parseAuditLine } from '../../../src/governance/audit/audit-record.js';
import { scheduleRecord } from '../../../src/governance/audit/audit-schedule.js';
import { auditLineText } from '../../../src/governance/audit/audit-text.js';

describe('the schedule audit line', () => {
  it('names the schedule, its creator, the firing job and how it ended, with origin schedule', () => {
    const record = scheduleRecord({
      threadKey: 'slack:T1:C1:1700000000.000100',
      userId: 'U1',
      scheduleId: 'sch-1',
      task: 'rerun',
      outcome: 'failed',
      jobId: 'schedule:sch-1:1700000000000',
      failuresInRow: 2,
    });
    expect(record).toMatchObject({
      v: 1,
      kind: 'schedule',
      origin: 'schedule',
      user: 'U1',
      platform: 'slack',
      workspace: 'T1',
      channel: 'C1',
      job: 'schedule:sch-1:1700000000000',
      schedule: 'sch-1',
      task: 'rerun',
      outcome: 'failed',
      failuresInRow: 2,
    });
    const text = auditLineText(parseAuditLine(formatAuditLine(record))!);
    expect(text).toContain('schedule    U1  slack:T1:C1:1700000000.000100  rerun failed  schedule sch-1');
    expect(text).toContain('failures in a row 2');
  });

  it('bounds what it copies and says null where nothing was counted', () => {
    const record = scheduleRecord({
      threadKey: 'web:local:web:t',
      userId: 'u'.repeat(1000),
      scheduleId: 's'.repeat(1000),
      task: 'ask',
      outcome: 'stopped_access',
    });
    expect(record.user!.length).toBeLessThanOrEqual(300);
    expect(record.schedule.length).toBeLessThanOrEqual(300);
    expect(record.failuresInRow).toBeNull();
    expect(record.job).toBeNull();
  });
});
