import { InProcessJobQueue } from '../../../src/queue/in-process-queue.js';
import { createLogger } from '../../../src/logger.js';
import { jobQueueContract } from '../../contract/job-queue-contract.js';

const logger = createLogger({ level: 'silent' });

jobQueueContract('InProcessJobQueue', async (options) => {
  const queue = new InProcessJobQueue({ logger, ...options });
  return { queue, dispose: () => queue.close(1000) };
});
