import type { ScheduledRun } from '../../ports/governance.js';
import { commonFields } from './audit-common.js';
import { boundString, type AuditScheduleRecord } from './audit-record.js';

/** The `schedule` line of a scheduled run (audit-record.ts): which schedule, as whom, and how it ended. */
export function scheduleRecord(run: ScheduledRun): AuditScheduleRecord {
  const common = commonFields(run.threadKey, run.userId);
  return {
    ...common,
    // Written outside the job's scope (at firing) or inside it: the job is named either way when there is one.
    user: boundString(run.userId),
    job: run.jobId ? boundString(run.jobId) : common.job,
    kind: 'schedule',
    origin: 'schedule',
    schedule: boundString(run.scheduleId),
    task: run.task,
    outcome: run.outcome,
    failuresInRow: run.failuresInRow ?? null,
  };
}
