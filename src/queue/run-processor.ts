import type { Logger } from '../logger.js';
import type { Job, JobContext, JobProcessor } from '../ports/job-queue.js';
import type { JobOutcome } from './queue-events.js';

/** How one run of the processor ended; `thrown` is set when it threw (after an abort too). */
export interface ProcessorRun {
  outcome: JobOutcome;
  thrown: boolean;
}

/**
 * Runs the processor on one job, the same way in every queue: an abort makes the run `cancelled`
 * (whether the processor returned or threw), any other throw is `error` and logged once, with its cause.
 */
export async function runProcessor(
  processor: JobProcessor,
  job: Job,
  options: JobContext & { logger: Logger },
): Promise<ProcessorRun> {
  try {
    // A microtask hop first, so even a processor that throws synchronously is caught here.
    await Promise.resolve();
    const { logger: _logger, ...context } = options;
    await processor(job, context);
    return { outcome: options.signal.aborted ? 'cancelled' : 'ok', thrown: false };
  } catch (err) {
    if (options.signal.aborted) return { outcome: 'cancelled', thrown: true };
    options.logger.error({ job: job.id, thread: job.threadKey, err }, 'job processor failed');
    return { outcome: 'error', thrown: true };
  }
}
