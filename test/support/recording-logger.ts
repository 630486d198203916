import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.js';

/** A real pino logger at `info` whose lines are kept, parsed, in `lines` (to assert what was logged). */
export function recordingLogger(): { lines: Record<string, unknown>[]; logger: Logger } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}
