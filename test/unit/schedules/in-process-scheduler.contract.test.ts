import { Writable } from 'node:stream';
import { createLogger } from '../../../src/logger.js';
import { InProcessScheduler } from '../../../src/schedules/in-process-scheduler.js';
import { schedulerContract } from '../../contract/scheduler-contract.js';

const logger = createLogger({ destination: new Writable({ write: (_c, _e, done) => done() }) });

schedulerContract('InProcessScheduler', async () => {
  const scheduler = new InProcessScheduler({ logger });
  return { scheduler, dispose: () => scheduler.close() };
});
