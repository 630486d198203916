import { randomUUID } from 'node:crypto';
import { isThreadlabError, toThreadlabError } from '../domain/errors.js';
import type { Intent } from '../domain/intent.js';
import type { InboundMessage, InboundUser } from '../domain/messages.js';
import { textReply } from '../domain/reply.js';
import { describeTask, describeWhen, type Schedule, type ScheduleWhen } from '../domain/schedule.js';
import { threadKey } from '../domain/thread-key.js';
import type { ScheduleLimits } from '../config/schedules.js';
import type { PlatformAdapters } from '../platforms/platform-adapters.js';
import { personName } from '../platforms/person-name.js';
import type { Logger } from '../logger.js';
import type { Governance, ScheduledRunOutcome } from '../ports/governance.js';
import type { Job, JobQueue } from '../ports/job-queue.js';
import type { ScheduleFiring, Scheduler } from '../ports/scheduler.js';
import type { ConversationStore } from '../ports/conversation-store.js';
import { nextFireMs } from './next-fire.js';
import { wallClockMs } from './time-zone.js';
import { parseScheduleCommand, type ScheduleCommand } from './parse-schedule.js';

/** Failed runs in a row after which a schedule stops. */
export const MAX_FAILURES_IN_A_ROW = 3;
/** Schedules `schedule list` shows one by one; the rest are counted. */
export const MAX_LISTED_IN_THREAD = 50;
/** Most schedules listed when limits are counted: past it no new schedule is made anywhere. */
export const MAX_SCHEDULES_TOTAL = 20_000;

export interface SchedulesOptions {
  scheduler: Scheduler;
  queue: JobQueue;
  store: ConversationStore;
  governance: Governance;
  /** Where a stopped schedule says so, once, in its thread. */
  adapters: PlatformAdapters;
  /** THREADLAB_SCHEDULES and THREADLAB_SCHEDULE_MIN_INTERVAL. */
  settings: { limits: ScheduleLimits; minIntervalMs: number };
  logger: Logger;
  /** @defaultValue Date.now */
  now?: () => number;
}

/** The answer to a `schedule` command: its text, and whether it is meant for the sender alone (a refusal). */
export interface ScheduleAnswer {
  text: string;
  /** Said to the sender only where the platform can (another person's `schedule cancel` refused). */
  onlySender?: boolean;
}

/** How a scheduled job ended, as the thread worker saw it. */
export type SettledRun = 'ok' | 'failed' | 'budget' | 'cancelled';

/**
 * Scheduled reports, the core's side: the `schedule` command (make, list, cancel, within the admins' bounds), a
 * firing turned into an ordinary job of the thread for the schedule's creator (after their access and budget are
 * checked), and how its run ended (three failures in a row stop it). A stopped schedule says so once in its thread:
 * only the process whose removal succeeds posts.
 */
export class Schedules {
  private readonly now: () => number;

  constructor(private readonly o: SchedulesOptions) {
    this.now = o.now ?? Date.now;
  }

  /**
   * Whether `schedule <text>` is answered when it arrives rather than as a job of the thread: listing, cancelling
   * and a text that does not parse touch no sandbox, so they never wait behind a running firing nor meet a rate
   * limit. A new schedule is queued in order: a re-run needs the notebook the messages before it leave.
   */
  answersAtOnce(text: string): boolean {
    return parseScheduleCommand(text).kind !== 'create';
  }

  /** The answer to `schedule <text>` in the thread of `message`. */
  async command(message: InboundMessage, text: string): Promise<ScheduleAnswer> {
    const { limits } = this.o.settings;
    if (!limits.enabled)
      return { text: 'Scheduled reports are turned off on this Threadlab (`THREADLAB_SCHEDULES=off`).' };
    const parsed = parseScheduleCommand(text, message.user.timeZone ?? 'UTC');
    const key = threadKey(message.thread);
    switch (parsed.kind) {
      case 'invalid':
        return { text: parsed.error };
      case 'list':
        return { text: this.listText(await this.ofThread(key)) };
      case 'cancel':
        return this.cancel(message, parsed.number);
      case 'create':
        return { text: await this.create(message, parsed) };
    }
  }

  private async create(message: InboundMessage, parsed: Extract<ScheduleCommand, { kind: 'create' }>): Promise<string> {
    const { limits } = this.o.settings;
    if (!limits.enabled) return 'Scheduled reports are turned off on this Threadlab (`THREADLAB_SCHEDULES=off`).';
    const key = threadKey(message.thread);
    const { when, task } = parsed;
    const { minIntervalMs } = this.o.settings;
    const shortestMs = when.kind === 'every' ? when.everyMs : 86_400_000;
    if (shortestMs < minIntervalMs)
      return `Schedules run at most every ${describeInterval(minIntervalMs)} here (\`THREADLAB_SCHEDULE_MIN_INTERVAL\`); ${describeWhen(when)} is more often.`;
    if (task.kind === 'rerun') {
      if (!(await this.hasNotebook(key)))
        return 'This thread has no code that ran yet, so there is nothing to re-run. Run something first, or schedule a question.';
      // A re-run runs code as is, as the creator's own: direct mode's allowlists apply when it is made, not only when it fires.
      const direct = await this.o.governance.admit(message, { direct: true, slashCommand: true });
      if (!direct.allowed)
        return `You may not run code directly here, so you cannot schedule a re-run. ${direct.message}`;
    }
    const refusal = await this.overLimit(message, limits);
    if (refusal) return refusal;
    const schedule: Schedule = {
      id: `sch-${randomUUID()}`,
      threadKey: key,
      thread: message.thread,
      creator: creatorOf(message.user),
      when,
      task,
      createdAtMs: this.now(),
    };
    await this.o.scheduler.add(schedule);
    const number = (await this.ofThread(key)).findIndex((s) => s.id === schedule.id) + 1;
    this.o.logger.info({ schedule: schedule.id, thread: key, user: message.user.id }, 'schedule made');
    const next = nextFireMs(when, schedule.createdAtMs, schedule.createdAtMs);
    return (
      `Scheduled #${number}: ${describeWhen(when)}, ${describeTask(task)} — first at ${timeOf(next, when)}. ` +
      'Each run posts here as you, within your access and budgets. `schedule list` shows them, `schedule cancel ' +
      `${number}\` stops this one.`
    );
  }

  /**
   * A schedule is due: the creator must still be let in and have budget left, then an ordinary job of the thread is
   * queued for them. Never throws: what goes wrong is logged (and counted, or stops the schedule).
   */
  async fire(firing: ScheduleFiring): Promise<void> {
    const { schedule, dueAtMs } = firing;
    const log = this.o.logger.child({ schedule: schedule.id, thread: schedule.threadKey });
    try {
      if (!this.o.settings.limits.enabled) return log.info('schedule not fired: THREADLAB_SCHEDULES=off');
      const message = firingMessage(schedule, dueAtMs, this.now());
      const intent: Intent =
        schedule.task.kind === 'rerun' ? { kind: 'rerun' } : { kind: 'ask', text: schedule.task.text };
      const admission = await this.o.governance.admit(message, { direct: intent.kind === 'rerun' });
      if (!admission.allowed) {
        this.audit(schedule, 'stopped_access');
        return this.stop(schedule, `${this.nameOf(schedule)} no longer has access to Threadlab here.`);
      }
      // The thread still works on something (the last firing, a person's message): this due time is skipped, so
      // firings never pile up, and the run in progress holding budget is not read as a spent budget.
      if (await this.o.queue.starter(schedule.threadKey)) {
        log.info('schedule firing skipped: its thread is still busy');
        return this.audit(schedule, 'skipped', message.id);
      }
      try {
        await this.o.governance.forTurn({
          message,
          threadKey: schedule.threadKey,
          needs: intent.kind === 'rerun' ? ['runMs'] : ['tokens', 'runMs'],
        });
      } catch (err) {
        if (!isThreadlabError(err, 'budget_exceeded')) throw err;
        this.audit(schedule, 'stopped_budget');
        return this.stop(schedule, `the daily budget of ${this.nameOf(schedule)} is spent. ${err.message}`);
      }
      const origin = { kind: 'schedule' as const, scheduleId: schedule.id, label: describeWhen(schedule.when) };
      const result = await this.o.queue.enqueue(message, { intent, origin });
      if (result.accepted) log.info({ job: result.jobId }, 'schedule fired');
      else if (result.reason === 'duplicate') log.info('schedule firing already queued');
      else {
        // The thread or user is busy (a limit): this due time is skipped, not failed.
        log.warn({ reason: result.reason }, 'schedule firing skipped by a queue limit');
        this.audit(schedule, 'skipped', message.id);
      }
    } catch (err) {
      log.error({ err: toThreadlabError(err) }, 'schedule firing failed');
    }
  }

  /** How a scheduled job's run ended: its audit line; a spent budget or the third failure in a row stops it. */
  async settled(job: Job, outcome: SettledRun): Promise<void> {
    const id = job.origin?.scheduleId;
    if (!id) return;
    const schedule = await this.o.scheduler.get(id);
    if (!schedule) {
      // Cancelled while this firing ran (a cancel is answered at once): the run still leaves its audit line.
      this.o.governance.recordScheduledRun({
        threadKey: job.threadKey,
        userId: job.message.user.id,
        scheduleId: id,
        task: job.intent?.kind === 'rerun' ? 'rerun' : 'ask',
        outcome: outcome === 'budget' ? 'stopped_budget' : outcome,
        jobId: job.id,
      });
      return;
    }
    const failures = outcome === 'cancelled' ? undefined : await this.o.scheduler.recordOutcome(id, outcome === 'ok');
    this.audit(schedule, outcome === 'budget' ? 'stopped_budget' : outcome, job.id, failures);
    if (outcome === 'budget') return this.stop(schedule, `the daily budget of ${this.nameOf(schedule)} is spent.`);
    if (failures !== undefined && failures >= MAX_FAILURES_IN_A_ROW)
      return this.stop(schedule, `its last ${failures} runs failed in a row.`);
  }

  /** A deleted thread's schedules go with it: nothing would show what they post. */
  async forgetThread(key: string): Promise<number> {
    const schedules = await this.ofThread(key);
    for (const s of schedules) await this.o.scheduler.remove(s.id);
    if (schedules.length)
      this.o.logger.info({ thread: key, schedules: schedules.length }, 'schedules of a deleted thread removed');
    return schedules.length;
  }

  /** The schedules of a thread, oldest first: their numbers in `schedule list` and `schedule cancel N`. */
  private async ofThread(key: string): Promise<Schedule[]> {
    return (await this.o.scheduler.list(MAX_SCHEDULES_TOTAL)).filter((s) => s.threadKey === key);
  }

  private listText(schedules: Schedule[]): string {
    if (schedules.length === 0) return 'No schedules in this thread. `schedule every day 09:00 <question>` makes one.';
    const now = this.now();
    const lines = schedules.slice(0, MAX_LISTED_IN_THREAD).map((s, i) => {
      const next = timeOf(nextFireMs(s.when, now, s.createdAtMs), s.when);
      return `#${i + 1} ${describeWhen(s.when)}: ${describeTask(s.task)} — by ${this.nameOf(s)}, next ${next}`;
    });
    const more = schedules.length - lines.length;
    if (more > 0) lines.push(`… and ${more} more (#${lines.length + 1} to #${schedules.length}).`);
    return [`Schedules in this thread (${schedules.length}):`, ...lines, '`schedule cancel N` stops one.'].join('\n');
  }

  private async cancel(message: InboundMessage, number: number): Promise<ScheduleAnswer> {
    const schedules = await this.ofThread(threadKey(message.thread));
    const schedule = schedules[number - 1];
    if (!schedule)
      return {
        text:
          schedules.length === 0
            ? 'No schedules in this thread.'
            : `There is no schedule #${number} here: \`schedule list\` shows ${schedules.length}.`,
        onlySender: true,
      };
    const { platform } = message.thread;
    if (!this.o.governance.mayStop(platform, message.user.id, schedule.creator.id)) {
      this.o.logger.info({ schedule: schedule.id, by: message.user.id }, 'schedule cancel refused: not the creator');
      return {
        text: `Only ${this.nameOf(schedule)} (who made it) or a Threadlab admin can cancel schedule #${number}.`,
        onlySender: true,
      };
    }
    await this.o.scheduler.remove(schedule.id);
    this.o.logger.info({ schedule: schedule.id, by: message.user.id }, 'schedule cancelled');
    return {
      text: `Cancelled schedule #${number} (${describeWhen(schedule.when)}, ${describeTask(schedule.task)}).`,
    };
  }

  private async hasNotebook(key: string): Promise<boolean> {
    const log = await this.o.store.readExport(key);
    return log.entries.some((e) => e.kind === 'run');
  }

  private async overLimit(
    message: InboundMessage,
    limits: Extract<ScheduleLimits, { enabled: true }>,
  ): Promise<string | undefined> {
    const all = await this.o.scheduler.list(MAX_SCHEDULES_TOTAL);
    if (all.length >= MAX_SCHEDULES_TOTAL)
      return `This Threadlab already holds ${MAX_SCHEDULES_TOTAL} schedules, the most it keeps. Cancel one first.`;
    const { platform, workspace } = message.thread;
    const here = all.filter((s) => s.thread.platform === platform && s.thread.workspace === workspace);
    const mine = here.filter((s) => s.creator.id === message.user.id);
    if (mine.length >= limits.perUser)
      return `You have ${mine.length} schedules, the most one person may have here (\`THREADLAB_SCHEDULES\`). Cancel one with \`schedule cancel N\` in its thread first.`;
    if (here.length >= limits.perWorkspace)
      return `This workspace has ${here.length} schedules, the most it may have (\`THREADLAB_SCHEDULES\`). Ask an admin, or cancel one first.`;
    return undefined;
  }

  /** Removes the schedule and, when this process removed it, says once in its thread why it stopped. */
  private async stop(schedule: Schedule, why: string): Promise<void> {
    const removed = await this.o.scheduler.remove(schedule.id);
    if (!removed) return;
    const log = this.o.logger.child({ schedule: schedule.id, thread: schedule.threadKey });
    log.info({ why }, 'schedule stopped');
    const text = `⏹️ The schedule ${describeWhen(schedule.when)} (${describeTask(schedule.task)}) by ${this.nameOf(schedule)} has stopped: ${why}`;
    const message = firingMessage(schedule, this.now(), this.now());
    try {
      await this.o.adapters.get(schedule.thread.platform).reply(message, textReply(text));
    } catch (err) {
      log.error({ err: toThreadlabError(err) }, 'could not say in the thread that the schedule stopped');
    }
  }

  /** The schedule's creator (or `who`) as its platform names people: a mention, or the display name. */
  private nameOf(schedule: Pick<Schedule, 'thread' | 'creator'>): string {
    return personName(this.o.adapters, schedule.thread.platform, schedule.creator);
  }

  private audit(schedule: Schedule, outcome: ScheduledRunOutcome, jobId?: string, failuresInRow?: number): void {
    this.o.governance.recordScheduledRun({
      threadKey: schedule.threadKey,
      userId: schedule.creator.id,
      scheduleId: schedule.id,
      task: schedule.task.kind,
      outcome,
      ...(jobId ? { jobId } : {}),
      ...(failuresInRow !== undefined ? { failuresInRow } : {}),
    });
  }
}

/** The message a firing runs as: the creator's, in the schedule's thread, with no platform reply context. */
export function firingMessage(schedule: Schedule, dueAtMs: number, nowMs: number): InboundMessage {
  return {
    id: `schedule:${schedule.id}:${dueAtMs}`,
    thread: schedule.thread,
    user: schedule.creator,
    text: schedule.task.kind === 'ask' ? schedule.task.text : '',
    attachments: [],
    receivedAtMs: nowMs,
  };
}

/** What a schedule keeps of its creator: who, and the roles the access lists read (no bot flag, no zone). */
function creatorOf(user: InboundUser): InboundUser {
  return {
    id: user.id,
    ...(user.name ? { name: user.name } : {}),
    ...(user.roles ? { roles: user.roles.slice(0, 250) } : {}),
  };
}

/**
 * A firing time as its schedule's user reads it: `2026-03-10 09:00` in the schedule's zone for a time of day (the
 * zone is in its description), `2026-03-10 09:00:05 UTC` for an interval.
 */
function timeOf(ms: number, when: ScheduleWhen): string {
  if (when.kind === 'at') return new Date(wallClockMs(ms, when.timeZone)).toISOString().slice(0, 16).replace('T', ' ');
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

function describeInterval(ms: number): string {
  return describeWhen({ kind: 'every', everyMs: ms }).replace(/^every /, '');
}
