import { InProcessJobQueue } from '../../../src/queue/in-process-queue.js';
import { createLogger } from '../../../src/logger.js';
import { jobQueueContract, type JobQueueFactory } from '../../contract/job-queue-contract.js';
import { jobQueueParkingContract } from '../../contract/job-queue-parking-contract.js';

const logger = createLogger({ level: 'silent' });

const factory: JobQueueFactory = async (options) => {
  const queue = new InProcessJobQueue({ logger, ...options });
  return { queue, dispose: () => queue.close(1000) };
};

jobQueueContract('InProcessJobQueue', factory);
jobQueueParkingContract('InProcessJobQueue', factory);
