import { LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from '../../src/logger.js';

/** Lets bolt and its clients log through our pino logger (with its redaction) instead of the console. */
export function boltLogger(logger: Logger): SlackLogger {
  let level: LogLevel = LogLevel.INFO;
  const text = (msg: unknown[]): string =>
    msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
  return {
    debug: (...msg) => logger.debug(text(msg)),
    info: (...msg) => logger.info(text(msg)),
    warn: (...msg) => logger.warn(text(msg)),
    error: (...msg) => logger.error(text(msg)),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
